// Lab 11 solution, step 1: the WMMA API (nvcuda::wmma), 16 x 16 x 16 fragments; one body for BF16
// (`wmma_global`) and FP16 (`wmma_fp16`, step 1h: tensor cores have taken FP16 since compute
// capability 7.0, BF16 only since 8.0). The fragment types, store_fragment and step 2 are given
// (wmma_pipelined.cuh), the kernels that call the body are given (core_kernels.cuh).
//
// Step 1 loads each fragment straight from global memory: every warp reads its own A rows and B
// columns for every fragment, nothing is shared between warps, and the tensor cores wait on
// global loads. The API needs each fragment's start 32-byte aligned and the leading dimension a
// multiple of 8 elements; warps whose fragments cross an edge of the matrix, or whose matrices are
// not so aligned, stage the fragment through a small zero-filled shared buffer instead.
#pragma once

#include "wmma_pipelined.cuh"

namespace lab11 {
namespace {

// Step 1 for either element type T: a warp's 32 x 32 of C as 2 x 2 accumulator fragments.
template <class T, bool kAligned>
__device__ __forceinline__ void wmma_global_body(const cudalabs::GemmArgsOf<T>& args) {
  using Tile = WmmaGlobalTile;
  constexpr int kWarps = Tile::kThreads / 32;
  __shared__ alignas(32) T staged_a[kWarps][Tile::kWarpM * 16];
  __shared__ alignas(32) T staged_b[kWarps][16 * Tile::kWarpN];
  __shared__ alignas(32) float out[kWarps][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = blockIdx.y * Tile::BM + (warp / Tile::kWarpsN) * Tile::kWarpM;
  const int col0 = blockIdx.x * Tile::BN + (warp % Tile::kWarpsN) * Tile::kWarpN;
  const bool warp_inside = row0 + Tile::kWarpM <= args.m && col0 + Tile::kWarpN <= args.n;

  Accumulator acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < args.k; k0 += 16) {
    FragmentAOf<T> a[2];
    FragmentBOf<T> b[2];
    if (kAligned && warp_inside && k0 + 16 <= args.k) {
      // Straight from global memory: 16 rows of 32 bytes per fragment, read by this warp alone.
#pragma unroll
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(a[i], args.a + (row0 + 16 * i) * args.lda + k0, args.lda);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(b[j], args.b + k0 * args.ldb + col0 + 16 * j, args.ldb);
    } else {
      // An edge or an unaligned matrix: stage the warp's 32 x 16 of A and 16 x 32 of B, zeros
      // outside.
      for (int e = lane; e < Tile::kWarpM * 16; e += 32) {
        const int row = row0 + e / 16, k = k0 + e % 16;
        staged_a[warp][e] = row < args.m && k < args.k ? args.a[row * args.lda + k] : zero_of<T>();
      }
      for (int e = lane; e < 16 * Tile::kWarpN; e += 32) {
        const int k = k0 + e / Tile::kWarpN, col = col0 + e % Tile::kWarpN;
        staged_b[warp][e] = k < args.k && col < args.n ? args.b[k * args.ldb + col] : zero_of<T>();
      }
      __syncwarp();
#pragma unroll
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &staged_a[warp][16 * i * 16], 16);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(b[j], &staged_b[warp][16 * j], Tile::kWarpN);
      __syncwarp();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      store_fragment(args, acc[i][j], out[warp], row0 + 16 * i, col0 + 16 * j);
}

}  // namespace
}  // namespace lab11
