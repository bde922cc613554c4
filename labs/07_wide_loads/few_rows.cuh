// Lab 07, given: the kernel `best` runs for a C of a few rows (M <= kFewRowsMaxRows) and a long K,
// the transpose of the narrow kernel's case. Nothing here is a TODO.
//
// With M = 4, a tile of 64 rows computes 60 rows of zeros, and the product is a matrix-vector
// product in disguise, bound by reading B (K x N) once. So each block takes 32 columns of C (one
// per lane: a warp's load of a row of B is 128 contiguous bytes whatever B's alignment), kRows rows
// of C (4, 8 or 16: the fewest that cover M, else groups of 16 on gridDim.y), and its slice of K
// (gridDim.z slices under best's split-K, k_slice.cuh). Its 8 warps share out each chunk of
// kFewRowsChunk values of K, 32 each; the chunk's rows of A sit in shared memory and are read 4
// values of K at a time by one 128-bit broadcast (any alignment of A: they are staged element by
// element). On a grid of no more blocks than SMs (kAhead) each thread loads the next chunk's values
// (its 32 of B, its kRows of A) into registers before it multiplies this chunk: the registers cost
// blocks an SM it would not get anyway, and the block no longer waits two trips to memory a chunk
// (32 x 1452 x 2232, 92 blocks: 36.1 -> 27.9 us; cuBLAS 21.6). On larger grids the loads stay at
// use, where fewer registers keep four blocks on an SM (64 x 16384 x 4096, 2048 blocks: 511 us at
// use, 765 ahead; docs/data/history/lab07_few_rows_ahead_nvidia-h200.txt). Past K the values are
// zeros. The warps' partial sums meet in shared memory at the end, and the block stores its rows
// and columns of C, column by column: any alignment of C.
#pragma once

#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "k_slice.cuh"
#include "tiles.h"

namespace lab07 {

namespace {

template <int kRows, bool kSlicedK, bool kAhead>
__global__ void __launch_bounds__(kFewRowsThreads) few_rows_gemm_kernel(cudalabs::GemmArgs args) {
  if constexpr (kSlicedK) args = k_slice_of_block(args);
  static_assert(kFewRowsChunk == kFewRowsThreads, "a thread stages one value of K of each row");
  __shared__ __align__(16) float a_chunk[kRows][kFewRowsChunk];
  __shared__ float partial[kFewRowsWarps][kRows][32];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int col = static_cast<int>(blockIdx.x) * kFewRowsCols + lane;
  const int row0 = static_cast<int>(blockIdx.y) * kRows;
  const int rows = min(kRows, args.m - row0);
  // Lanes past N read column N - 1 and store nothing.
  const float* b = args.b + min(col, args.n - 1);
  const int first = warp * 32;  // this warp's 32 values of K in each chunk
  // The next chunk's values, loaded a chunk ahead: this thread's value of K (threadIdx.x) of each
  // row of A, and this lane's column of the warp's 32 rows of B. A load past K (or past M) is
  // predicated off and leaves a zero.
  float a_next[kRows], b_next[32];
  const auto load_chunk = [&](int k0) {
    const int k = k0 + static_cast<int>(threadIdx.x);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      a_next[r] = r < rows && k < args.k
                      ? __ldg(args.a + static_cast<long long>(row0 + r) * args.lda + k)
                      : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < 32; ++q) {
      const int kb = k0 + first + q;
      b_next[q] = kb < args.k ? __ldg(b + static_cast<long long>(kb) * args.ldb) : 0.0f;
    }
  };
  float acc[kRows] = {};
  if constexpr (kAhead) {
    load_chunk(0);
    for (int k0 = 0; k0 < args.k; k0 += kFewRowsChunk) {
      __syncthreads();  // the previous chunk's rows of A are read
#pragma unroll
      for (int r = 0; r < kRows; ++r) a_chunk[r][threadIdx.x] = a_next[r];
      float b_now[32];
#pragma unroll
      for (int q = 0; q < 32; ++q) b_now[q] = b_next[q];
      __syncthreads();
      if (k0 + kFewRowsChunk < args.k) load_chunk(k0 + kFewRowsChunk);  // in flight below
#pragma unroll
      for (int kk = 0; kk < 32; kk += 4) {
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          const float4 a4 = *reinterpret_cast<const float4*>(&a_chunk[r][first + kk]);
          acc[r] = fmaf(a4.x, b_now[kk + 0], acc[r]);
          acc[r] = fmaf(a4.y, b_now[kk + 1], acc[r]);
          acc[r] = fmaf(a4.z, b_now[kk + 2], acc[r]);
          acc[r] = fmaf(a4.w, b_now[kk + 3], acc[r]);
        }
      }
    }
  } else {
    // Loads at use: fewer registers, four blocks an SM, for grids of more blocks than SMs.
    for (int k0 = 0; k0 < args.k; k0 += kFewRowsChunk) {
      __syncthreads();  // the previous chunk's rows of A are read
      for (int i = static_cast<int>(threadIdx.x); i < kRows * kFewRowsChunk; i += kFewRowsThreads) {
        const int r = i / kFewRowsChunk, kk = i % kFewRowsChunk;
        a_chunk[r][kk] = r < rows && k0 + kk < args.k
                             ? __ldg(args.a + static_cast<long long>(row0 + r) * args.lda + k0 + kk)
                             : 0.0f;
      }
      __syncthreads();
      if (k0 + first + 32 <= args.k) {
#pragma unroll
        for (int kk = 0; kk < 32; kk += 4) {
          float b_value[4];
#pragma unroll
          for (int q = 0; q < 4; ++q)
            b_value[q] = __ldg(b + static_cast<long long>(k0 + first + kk + q) * args.ldb);
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            const float4 a4 = *reinterpret_cast<const float4*>(&a_chunk[r][first + kk]);
            acc[r] = fmaf(a4.x, b_value[0], acc[r]);
            acc[r] = fmaf(a4.y, b_value[1], acc[r]);
            acc[r] = fmaf(a4.z, b_value[2], acc[r]);
            acc[r] = fmaf(a4.w, b_value[3], acc[r]);
          }
        }
      } else {
        // The chunk that holds K's end: only the rows of B inside it are read.
        for (int kk = first; kk < first + 32 && k0 + kk < args.k; ++kk) {
          const float b_value = __ldg(b + static_cast<long long>(k0 + kk) * args.ldb);
#pragma unroll
          for (int r = 0; r < kRows; ++r) acc[r] = fmaf(a_chunk[r][kk], b_value, acc[r]);
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) partial[warp][r][lane] = acc[r];
  __syncthreads();
  // Warp w adds up rows w, w + 8, ... over the warps and stores them.
  for (int r = warp; r < rows; r += kFewRowsWarps) {
    if (col >= args.n) continue;
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kFewRowsWarps; ++w) sum += partial[w][r][lane];
    cudalabs::store_gemm_result(args.c + static_cast<long long>(row0 + r) * args.ldc + col, sum,
                                args.alpha, args.beta);
  }
}

}  // namespace
}  // namespace lab07
