// Lab 07, given: the kernel `best` runs for a short K (best_plan.cpp: at most kShortKMaxK), where a
// GEMM is mostly writing C. Nothing here is a TODO.
//
// 896 x 13697 x 16 writes 49 MB and does 0.4 GFLOP. The block-tile kernels spend such a shape
// filling and draining pipelines built for a long K, and their misaligned path (B's scalar loads,
// C's shifted stores) costs most there: wide_64x64 took 48 us, cuBLAS 29 (H200). Here a block of
// 8 warps takes a kShortKRows x kShortKCols tile of C and K in chunks of kShortKChunk, copied by
// cp.async (four bytes at a time, or B sixteen where its rows allow; any alignment, zeros past M,
// N and K) into two buffers of dynamic shared memory, the next chunk in flight while this one is
// multiplied. Warp w computes rows 8w .. 8w + 7, lane l columns l, l + 32, l + 64 and l + 96: per
// value of K two 128-bit broadcasts of A (kept transposed) and four conflict-free loads of B for
// 32 FFMAs, and a warp's store is 32 consecutive floats of a row, whole sectors at any alignment
// of C. Four blocks an SM overlap one block's copies and stores with another's FFMAs.
#pragma once

#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "common/split_finish.h"
#include "tiles.h"

namespace lab07 {

namespace {

// `finish` is unused: K is never split for this kernel. The parameter gives it the signature of
// every kernel `best` launches (launch.cuh's PlannedLaunch). kVectorB: B's rows allow 16-byte
// copies (rows_allow_16_byte_loads), a quarter of the copies.
template <bool kVectorB>
__global__ void __launch_bounds__(kShortKThreads, kShortKBlocksPerSm)
    short_k_gemm_kernel(cudalabs::GemmArgs args, cudalabs::SplitFinish /*finish*/) {
  constexpr int kWarpRows = kShortKRows / (kShortKThreads / 32);  // rows of C a warp computes
  constexpr int kLaneCols = kShortKCols / 32;                     // columns a lane, 32 apart
  // A's chunk transposed ([k][row]): a warp's 8 rows at one k are two 16-byte broadcasts.
  constexpr int kARow = kShortKARowFloats;
  static_assert(kWarpRows == 8 && kShortKCols % 32 == 0, "a warp's rows are two float4s");
  // Two buffers of A's and B's chunks: more than the 48 KiB a block may declare statically.
  extern __shared__ float4 short_k_shared[];
  auto& a_chunk = *reinterpret_cast<float(*)[2][kShortKChunk][kARow]>(short_k_shared);
  auto& b_chunk = *reinterpret_cast<float(*)[2][kShortKChunk][kShortKCols]>(
      reinterpret_cast<float*>(short_k_shared) + 2 * kShortKChunk * kARow);

  // Tiles numbered along C's rows: blocks side by side share A's rows.
  const int col_tiles = (args.n + kShortKCols - 1) / kShortKCols;
  const int row0 = static_cast<int>(blockIdx.x) / col_tiles * kShortKRows;
  const int col0 = static_cast<int>(blockIdx.x) % col_tiles * kShortKCols;
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;

  // What each thread copies is the same in every chunk, so its pointers and the rows and columns
  // inside C are worked out once and only K moves (the copies' bookkeeping was a fifth of the
  // instructions at 8192 x 8192 x 64 when each copy worked out its own: Nsight Compute). A copy
  // outside the operand reads nothing (from the operand's first element) and writes a zero.
  // A: value a_k of K of rows a_row, a_row + kARowsApart, ... (a warp reads a run of a row).
  constexpr int kAValues = kShortKRows * kShortKChunk / kShortKThreads;
  constexpr int kARowsApart = kShortKThreads / kShortKChunk;
  const int a_k = tid % kShortKChunk, a_row = tid / kShortKChunk;
  const int a_rows_inside = max(0, args.m - row0 - a_row + kARowsApart - 1) / kARowsApart;
  const float* a_from = args.a + static_cast<long long>(row0 + a_row) * args.lda + a_k;
  // B: kBWidth floats (4 with kVectorB) of rows b_k, b_k + kBRowsApart, ... at column b_col (a
  // warp reads consecutive floats of a row).
  constexpr int kBWidth = kVectorB ? 4 : 1;
  constexpr int kBThreadsARow = kShortKCols / kBWidth;
  constexpr int kBValues = kShortKChunk * kShortKCols / kShortKThreads / kBWidth;
  constexpr int kBRowsApart = kShortKThreads / kBThreadsARow;
  static_assert(kAValues * kShortKThreads == kShortKRows * kShortKChunk &&
                    kBValues * kBWidth * kShortKThreads == kShortKChunk * kShortKCols,
                "every thread copies as many values");
  const int b_col = tid % kBThreadsARow * kBWidth, b_k = tid / kBThreadsARow;
  const int b_bytes = 4 * max(0, min(kBWidth, args.n - col0 - b_col));  // of its floats inside N
  const float* b_from = args.b + static_cast<long long>(b_k) * args.ldb + col0 + b_col;

  const auto copy_chunk = [&](int buffer, int k0) {
    const bool a_k_inside = k0 + a_k < args.k;
    const float* a_at = a_from + k0;
#pragma unroll
    for (int i = 0; i < kAValues; ++i) {
      const bool inside = a_k_inside && i < a_rows_inside;
      cudalabs::async_copy_4(&a_chunk[buffer][a_k][a_row + i * kARowsApart], inside ? a_at : args.a,
                             inside);
      a_at += static_cast<long long>(kARowsApart) * args.lda;
    }
    const int b_rows_inside = max(0, args.k - k0 - b_k + kBRowsApart - 1) / kBRowsApart;
    const float* b_at = b_from + static_cast<long long>(k0) * args.ldb;
#pragma unroll
    for (int i = 0; i < kBValues; ++i) {
      const int bytes = i < b_rows_inside ? b_bytes : 0;
      float* to = &b_chunk[buffer][b_k + i * kBRowsApart][b_col];
      if constexpr (kVectorB) {
        cudalabs::async_copy_16_zero_fill(to, bytes > 0 ? b_at : args.b, bytes);
      } else {
        cudalabs::async_copy_4(to, bytes > 0 ? b_at : args.b, bytes > 0);
      }
      b_at += static_cast<long long>(kBRowsApart) * args.ldb;
    }
    cudalabs::async_copy_commit();
  };

  float acc[kWarpRows][kLaneCols] = {};
  const int chunks = (args.k + kShortKChunk - 1) / kShortKChunk;
  copy_chunk(0, 0);
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const int buffer = chunk % 2, k0 = chunk * kShortKChunk;
    if (chunk + 1 < chunks) {
      copy_chunk(1 - buffer, k0 + kShortKChunk);  // its buffer was freed by the last barrier
      cudalabs::async_copy_wait<1>();
    } else {
      cudalabs::async_copy_wait<0>();
    }
    __syncthreads();  // the chunk has landed for every thread
    // The chunk's values of K rounded up to 4: the zeros past K add nothing.
    const int steps = min(kShortKChunk, (args.k - k0 + 3) / 4 * 4);
    for (int k4 = 0; k4 < steps; k4 += 4) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const float* a_values = &a_chunk[buffer][k4 + kk][warp * kWarpRows];
        const float4 a_low = *reinterpret_cast<const float4*>(a_values);
        const float4 a_high = *reinterpret_cast<const float4*>(a_values + 4);
        const float a[kWarpRows] = {a_low.x,  a_low.y,  a_low.z,  a_low.w,
                                    a_high.x, a_high.y, a_high.z, a_high.w};
        float b[kLaneCols];
#pragma unroll
        for (int j = 0; j < kLaneCols; ++j) b[j] = b_chunk[buffer][k4 + kk][lane + 32 * j];
#pragma unroll
        for (int i = 0; i < kWarpRows; ++i)
#pragma unroll
          for (int j = 0; j < kLaneCols; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    __syncthreads();  // every warp is done with the buffer the next copy fills
  }
#pragma unroll
  for (int i = 0; i < kWarpRows; ++i) {
    const int row = row0 + warp * kWarpRows + i;
    if (row >= args.m) break;
#pragma unroll
    for (int j = 0; j < kLaneCols; ++j) {
      const int col = col0 + lane + 32 * j;
      if (col < args.n)
        cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc[i][j], args.alpha,
                                    args.beta);
    }
  }
}

}  // namespace
}  // namespace lab07
