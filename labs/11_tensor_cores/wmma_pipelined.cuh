// Lab 11, given: the WMMA side of the ladder that is not step 1's lesson, and step 2 whole, as a
// worked example to read before step 3.
//  - The WMMA fragment types (nvcuda::wmma, 16 x 16 x 16, row-major A and B, FP32 accumulators)
//    and store_fragment, which writes an accumulator into C through a warp's 16 x 16 buffer
//    (store_matrix_sync cannot stop at C's edge, and C = alpha * acc + beta * C needs the values).
//  - Step 2, `wmma_pipelined`: lab 07's recipe on tensor cores. 128 x 128 x 32 block tiles shared
//    by 8 warps (64 x 32 each), cp.async stages three deep (staging.cuh's cp_async_pipeline) so the
//    next tiles arrive while this one multiplies, and shared rows padded by 16 bytes so that the
//    fragment loads spread over the banks. Read it before you write step 3: the stages, the
//    loads and the pipeline are the same there, only the layout and the instructions change.
#pragma once

#include "staging.cuh"

#include <mma.h>

namespace lab11 {
namespace {

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
