// Lab 11 solution, steps 1 and 2: the WMMA API (nvcuda::wmma), BF16 fragments of 16 x 16 x 16;
// step 1 again with FP16 fragments (`wmma_fp16`), which tensor cores have since compute capability
// 7.0 (BF16 only since 8.0): the same kernel, another element type.
//
// Step 1 loads each fragment straight from global memory: every warp reads its own A rows and B
// columns for every fragment, nothing is shared between warps, and the tensor cores wait on
// global loads. The API needs each fragment's start 32-byte aligned and the leading dimension a
// multiple of 8 elements; warps whose fragments cross an edge of the matrix, or whose matrices are
// not so aligned, stage the fragment through a small zero-filled shared buffer instead.
//
// Step 2 is lab 07's recipe on tensor cores: 128 x 128 x 32 block tiles shared by 8 warps
// (64 x 32 each), cp.async stages three deep so the next tiles arrive while this one multiplies,
// and shared rows padded by 16 bytes so that the fragment loads spread over the banks.
#pragma once

#include "swizzled_tiles.cuh"

#include <mma.h>

namespace lab11 {
namespace {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define LAB11_BF16_TENSOR_CORES 1
#else
#define LAB11_BF16_TENSOR_CORES 0  // BF16 fragments need compute capability 8.0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define LAB11_FP16_TENSOR_CORES 1
#else
#define LAB11_FP16_TENSOR_CORES 0  // FP16 fragments need compute capability 7.0
#endif

namespace wmma = nvcuda::wmma;
template <class T>
using FragmentAOf = wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major>;
template <class T>
using FragmentBOf = wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major>;
using FragmentA = FragmentAOf<bf16>;
using FragmentB = FragmentBOf<bf16>;
using Accumulator = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// Writes one accumulator fragment at (row0, col0) of C through the warp's 16 x 16 float buffer:
// C = alpha * acc + beta * C, only inside C (store_matrix_sync itself cannot stop at an edge).
template <class T>
__device__ __forceinline__ void store_fragment(const cudalabs::GemmArgsOf<T>& args,
                                               const Accumulator& acc, float* buffer, int row0,
                                               int col0) {
  const int lane = threadIdx.x % 32;
  wmma::store_matrix_sync(buffer, acc, 16, wmma::mem_row_major);
  __syncwarp();
  for (int e = lane; e < 16 * 16; e += 32) {
    const int row = row0 + e / 16, col = col0 + e % 16;
    if (row < args.m && col < args.n) {
      float* c = args.c + row * args.ldc + col;
      *c = args.alpha * buffer[e] + (args.beta != 0.0f ? args.beta * *c : 0.0f);
    }
  }
  __syncwarp();
}

// Step 1 for either element type T (BF16: wmma_global_kernel, FP16: wmma_fp16_kernel).
template <class T, bool kAligned>
__device__ __forceinline__ void wmma_global_body(const cudalabs::GemmArgsOf<T>& args) {
  using Tile = WmmaGlobalTile;
  using FragmentA = FragmentAOf<T>;
  using FragmentB = FragmentBOf<T>;
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
    FragmentA a[2];
    FragmentB b[2];
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

template <bool kAligned>
__global__ void __launch_bounds__(WmmaGlobalTile::kThreads)
    wmma_global_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_BF16_TENSOR_CORES
  wmma_global_body<bf16, kAligned>(args);
#else
  (void)args;
#endif
}

// The FP16 rung of step 1: what a GPU of compute capability 7.x (T4, RTX 20) runs.
template <bool kAligned>
__global__ void __launch_bounds__(WmmaGlobalTile::kThreads)
    wmma_fp16_kernel(cudalabs::Fp16GemmArgs args) {
#if LAB11_FP16_TENSOR_CORES
  wmma_global_body<fp16, kAligned>(args);
#else
  (void)args;
#endif
}

// Starts copying A's 128 x 32 and B's 32 x 128 tile at k0 into a stage (padded rows).
template <bool kAligned>
__device__ __forceinline__ void stage_wmma_tiles(const cudalabs::Bf16GemmArgs& args, bf16* stage_a,
                                                 bf16* stage_b, int row0, int col0, int k0) {
  using Tile = WmmaPipelinedTile;
  constexpr int kChunksA = Tile::BM * Tile::BK / kChunk, kChunksB = Tile::BK * Tile::BN / kChunk;
#pragma unroll
  for (int chunk = threadIdx.x; chunk < kChunksA; chunk += Tile::kThreads) {
    const int row = chunk / (Tile::BK / kChunk), col = chunk % (Tile::BK / kChunk) * kChunk;
    stage_chunk<kAligned>(stage_a + row * Tile::kLdA + col, args.a, args.lda, args.m, args.k,
                          row0 + row, k0 + col);
  }
#pragma unroll
  for (int chunk = threadIdx.x; chunk < kChunksB; chunk += Tile::kThreads) {
    const int row = chunk / (Tile::BN / kChunk), col = chunk % (Tile::BN / kChunk) * kChunk;
    stage_chunk<kAligned>(stage_b + row * Tile::kLdB + col, args.b, args.ldb, args.k, args.n,
                          k0 + row, col0 + col);
  }
}

template <bool kAligned>
__global__ void __launch_bounds__(WmmaPipelinedTile::kThreads)
    wmma_pipelined_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_BF16_TENSOR_CORES
  using Tile = WmmaPipelinedTile;
  extern __shared__ __align__(128) unsigned char shared[];
  const auto stage_a = [&](int s) {
    return reinterpret_cast<bf16*>(shared + s * Tile::kStageBytes);
  };
  const auto stage_b = [&](int s) { return stage_a(s) + Tile::BM * Tile::kLdA; };
  float* out = reinterpret_cast<float*>(shared + Tile::kStages * Tile::kStageBytes);
  const int warp = threadIdx.x / 32;
  const int row0 = blockIdx.y * Tile::BM, col0 = blockIdx.x * Tile::BN;
  const int warp_row = (warp / Tile::kWarpsN) * Tile::kWarpM;
  const int warp_col = (warp % Tile::kWarpsN) * Tile::kWarpN;
  const int tiles = (args.k + Tile::BK - 1) / Tile::BK;

  Accumulator acc[4][2];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  const auto load = [&](int s, int t) {
    stage_wmma_tiles<kAligned>(args, stage_a(s), stage_b(s), row0, col0, t * Tile::BK);
  };
  const auto multiply = [&](int s) {
    const bf16* a = stage_a(s);
    const bf16* b = stage_b(s);
#pragma unroll
    for (int kk = 0; kk < Tile::BK; kk += 16) {
      FragmentA fa[4];
      FragmentB fb[2];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        wmma::load_matrix_sync(fa[i], a + (warp_row + 16 * i) * Tile::kLdA + kk, Tile::kLdA);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(fb[j], b + kk * Tile::kLdB + warp_col + 16 * j, Tile::kLdB);
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
  };
  cp_async_pipeline<Tile::kStages, false>(tiles, load, multiply);
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      store_fragment(args, acc[i][j], out + warp * 16 * 16, row0 + warp_row + 16 * i,
                     col0 + warp_col + 16 * j);
#else
  (void)args;
#endif
}

}  // namespace
}  // namespace lab11
