// Lab 11 solution: what the tensor-core kernels share, for BF16 and FP16 inputs alike. Staging
// tiles of A and B in shared memory 16 bytes at a time (cp.async when the operands allow it,
// element by element otherwise), the multistage cp.async loop of rungs 2 to 4, the 128-byte
// swizzle, and the alpha/beta update of C from the m16n8 accumulator layout.
#pragma once

#include "common/async_copy.cuh"
#include "common/gemm_types.h"
#include "tensor_core_ptx.cuh"
#include "tiles.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace lab11 {

using bf16 = __nv_bfloat16;
using fp16 = __half;

// Zero in a 16-bit input type.
template <class T>
__device__ __forceinline__ T zero_of() {
  if constexpr (std::is_same_v<T, fp16>) {
    return __float2half_rn(0.0f);
  } else {
    return __float2bfloat16_rn(0.0f);
  }
}

// One warp-wide 16 x 8 x 16 tensor-core step at T's precision (tensor_core_ptx.cuh).
__device__ __forceinline__ void mma_16x8x16(bf16, float (&d)[4], const std::uint32_t (&a)[4],
                                            std::uint32_t b0, std::uint32_t b1) {
  ptx::mma_m16n8k16_bf16(d, a, b0, b1);
}
__device__ __forceinline__ void mma_16x8x16(fp16, float (&d)[4], const std::uint32_t (&a)[4],
                                            std::uint32_t b0, std::uint32_t b1) {
  ptx::mma_m16n8k16_fp16(d, a, b0, b1);
}

// Byte offset of 16-byte chunk `chunk` (0..7) of 128-byte row `row` in a swizzled region: the
// chunk index is XORed with row mod 8. Eight consecutive rows read at the same logical chunk (what
// ldmatrix and the tensor cores do) then touch eight different chunk positions, so all 32 banks.
// It is the pattern TMA's CU_TENSOR_MAP_SWIZZLE_128B writes and wgmma's 128-byte swizzle mode
// reads, provided the region starts on a 1024-byte boundary.
__device__ __forceinline__ int swizzled_offset(int row, int chunk) {
  return row * SwizzledTile::kRowBytes + ((chunk ^ (row & 7)) << 4);
}

// Where chunk (k, n / 8) of a B stage lives: panel n / 64 (8 KiB each), then swizzled_offset
// within it.
__device__ __forceinline__ int b_panel_offset(int k, int column_chunk) {
  return (column_chunk >> 3) * SwizzledTile::kPanelBytes + swizzled_offset(k, column_chunk & 7);
}

// Copies the 8 elements (row, col .. col + 7) of a rows x cols matrix into 16 bytes of shared
// memory at `destination`, zeros outside the matrix. kAligned (the matrix 16-byte aligned, ld a
// multiple of 8) takes one cp.async that reads only the bytes inside; otherwise 8 element loads
// and one 16-byte store.
template <bool kAligned, class T>
__device__ __forceinline__ void stage_chunk(void* destination, const T* __restrict__ matrix, int ld,
                                            int rows, int cols, int row, int col) {
  if constexpr (kAligned) {
    const int inside = row < rows && col < cols ? min(kChunk, cols - col) : 0;
    const T* source = inside > 0 ? matrix + row * ld + col : matrix;
    cudalabs::async_copy_16_zero_fill(destination, source, inside * 2);
  } else {
    alignas(16) T values[kChunk];
#pragma unroll
    for (int e = 0; e < kChunk; ++e) {
      values[e] = row < rows && col + e < cols ? matrix[row * ld + col + e] : zero_of<T>();
    }
    *reinterpret_cast<uint4*>(destination) = *reinterpret_cast<const uint4*>(values);
  }
}

// The multistage cp.async loop of rungs 2 to 4 over `tiles` tiles of K: kStages - 1 tiles in flight
// before the first multiply, one commit group per tile (empty ones too, so that "wait until
// kStages - 2 groups remain" always means "tile t has landed"). load(stage, tile) starts the copies
// of a tile into a stage; multiply(stage) consumes one. The barrier before each multiply also tells
// every thread that the stage about to be refilled was read by all. kAsyncReaders: the stages are
// read by wgmma (the async proxy), so each thread orders its writes before them with a fence.
// [pipeline]
template <int kStages, bool kAsyncReaders, typename Load, typename Multiply>
__device__ __forceinline__ void cp_async_pipeline(int tiles, Load load, Multiply multiply) {
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) load(s, s);
    cudalabs::async_copy_commit();
  }
  for (int t = 0; t < tiles; ++t) {
    cudalabs::async_copy_wait<kStages - 2>();
    if constexpr (kAsyncReaders) ptx::fence_proxy_async_shared();
    __syncthreads();
    const int next = t + kStages - 1;
    if (next < tiles) load(next % kStages, next);
    cudalabs::async_copy_commit();
    multiply(t % kStages);
  }
  cudalabs::async_copy_wait<0>();  // no copy may land after the block has moved on
}
// [pipeline]

// Starts copying A's BM x 64 and B's 64 x BN tile at k0 into a swizzled stage (A rows, then B
// panels).
template <int BM, int BN, int kThreads, bool kAligned, class T>
__device__ __forceinline__ void stage_swizzled_tiles(const cudalabs::GemmArgsOf<T>& args,
                                                     unsigned char* stage, int row0, int col0,
                                                     int k0) {
  constexpr int kChunksPerRow = SwizzledTile::kRowBytes / 16;
  unsigned char* b_stage = stage + BM * SwizzledTile::kRowBytes;
#pragma unroll
  for (int chunk = threadIdx.x; chunk < BM * kChunksPerRow; chunk += kThreads) {
    const int row = chunk / kChunksPerRow, c = chunk % kChunksPerRow;
    stage_chunk<kAligned>(stage + swizzled_offset(row, c), args.a, args.lda, args.m, args.k,
                          row0 + row, k0 + c * kChunk);
  }
  constexpr int kChunksB = BN / kChunk;
#pragma unroll
  for (int chunk = threadIdx.x; chunk < SwizzledTile::BK * kChunksB; chunk += kThreads) {
    const int k = chunk / kChunksB, c = chunk % kChunksB;
    stage_chunk<kAligned>(b_stage + b_panel_offset(k, c), args.b, args.ldb, args.k, args.n, k0 + k,
                          col0 + c * kChunk);
  }
}

// C(row, col .. col + 1) = alpha * (v0, v1) + beta * C: the pair of accumulators an mma.sync or
// wgmma lane holds. One 8-byte store where C allows (8-byte aligned, ldc even: `pairs`), C never
// read when beta == 0, nothing stored outside C.
template <class T>
__device__ __forceinline__ void store_pair(const cudalabs::GemmArgsOf<T>& args, int row, int col,
                                           float v0, float v1, bool pairs) {
  if (row >= args.m || col >= args.n) return;
  float* c = args.c + row * args.ldc + col;
  if (pairs && col + 1 < args.n) {
    float2 out = make_float2(args.alpha * v0, args.alpha * v1);
    if (args.beta != 0.0f) {
      const float2 old = *reinterpret_cast<const float2*>(c);
      out.x += args.beta * old.x;
      out.y += args.beta * old.y;
    }
    *reinterpret_cast<float2*>(c) = out;
    return;
  }
  c[0] = args.alpha * v0 + (args.beta != 0.0f ? args.beta * c[0] : 0.0f);
  if (col + 1 < args.n) c[1] = args.alpha * v1 + (args.beta != 0.0f ? args.beta * c[1] : 0.0f);
}

// C allows 8-byte stores of pairs of columns (checked once per kernel).
template <class T>
__device__ __forceinline__ bool pair_stores_allowed(const cudalabs::GemmArgsOf<T>& args) {
  return reinterpret_cast<std::uintptr_t>(args.c) % 8 == 0 && args.ldc % 2 == 0;
}

// Where tile `tile` of a tiles_m x tiles_n grid starts when consecutive tiles walk down
// `group_rows` tile rows before moving right, so that tiles running together share panels of A
// and B in L2.
__device__ __forceinline__ int2 grouped_tile(int tile, int tiles_m, int tiles_n, int group_rows) {
  const int per_group = group_rows * tiles_n;
  const int first_row = tile / per_group * group_rows;
  const int rows_here = min(tiles_m - first_row, group_rows);
  const int in_group = tile % per_group;
  return make_int2(first_row + in_group % rows_here, in_group / rows_here);
}

}  // namespace lab11
