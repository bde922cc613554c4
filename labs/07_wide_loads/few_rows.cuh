// Lab 07, given: the kernel `best` runs for a C of a few rows (M <= kFewRowsMaxRows) and a long K,
// the transpose of the narrow kernel's case. Nothing here is a TODO.
//
// With M = 4, a tile of 64 rows computes 60 rows of zeros, and the product is a matrix-vector
// product in disguise, bound by reading B (K x N) once. So each block takes kFewRowsCols columns
// of C (two a lane), kRows rows (4, 8 or 16: the fewest that cover M, else groups of 16 on
// gridDim.y) and its slice of K (gridDim.z slices under best's split-K, k_slice.cuh).
//
// B and A come through kFewRowsStages stages of shared memory filled by cp.async, three in flight
// while the block multiplies a fourth. Its first form loaded B into registers, four or 32 values
// a thread, and ran at 2 to 3 times its model's time where the grid held one or two blocks an SM
// (17 x 2326 x 3664: 84 us, cuBLAS 29; docs/data/history/lab07_few_rows_ahead_nvidia-h200.txt).
// Staged, it is bound by the instructions it issues, not by DRAM (Nsight Compute: DRAM 10-18 %
// busy), so the copies' bookkeeping is worked out once (below), and best's model counts its
// stages (docs/data/history/lab07_few_rows_stages_nvidia-h200.txt). The copies take any
// alignment: 4 bytes each, or 16 where B's rows allow it (kVectorB), zero-filled past K, M and N.
// In each stage of kFewRowsStageK values of K, warp w multiplies values 4w to 4w + 3: per row of
// A one 128-bit broadcast of its four values, per value of K one 64-bit load of the lane's two
// columns of B, and 8 FFMAs a row. The warps' partial sums meet in shared memory at the end (in
// the stages' place), and the block stores its rows and columns of C, a column a thread: any
// alignment of C. Split, each block's part is counted, and the last slice of its rows and columns
// to arrive sums every slice into C (k_slice.cuh's TilePart).
#pragma once

#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "k_slice.cuh"
#include "tiles.h"

#include <type_traits>

namespace lab07 {

namespace {

template <int kRows, bool kSlicedK, bool kVectorB>
__global__ void __launch_bounds__(kFewRowsThreads, few_rows_blocks_per_sm(kRows))
    few_rows_gemm_kernel(cudalabs::GemmArgs args, cudalabs::SplitFinish finish) {
  const cudalabs::GemmArgs workspace = args;  // split: every slice's part, slice 0 first
  if constexpr (kSlicedK) args = k_slice_of_block(args);
  static_assert(kFewRowsStageK == kFewRowsWarps * 4, "a warp multiplies 4 values of K a stage");
  static_assert(kFewRowsCols == 2 * 32, "a lane owns 2 columns");
  __shared__ __align__(16) float few_rows_shared[few_rows_shared_floats(kRows)];
  constexpr int kStageB = kFewRowsStageK * kFewRowsCols;  // a stage of B: [K][columns]
  constexpr int kStageA = kRows * kFewRowsStageK;         // a stage of A: [row][K]
  constexpr int kStage = kStageB + kStageA;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int col0 = static_cast<int>(blockIdx.x) * kFewRowsCols;
  const int row0 = static_cast<int>(blockIdx.y) * kRows;
  const int rows = min(kRows, args.m - row0);
  const int stages = (args.k + kFewRowsStageK - 1) / kFewRowsStageK;

  // What each thread copies is fixed for the whole loop, so it is worked out once: its first row
  // of each stage's B (then every kRowsAtOnce-th) at its columns, its rows of each stage's A (warp,
  // warp + 8, ...) at value `lane` of K, and pointers that move on a stage at a time. The threads
  // copy whole rows of B: 128 contiguous bytes a warp instruction, 256 of two rows with kVectorB.
  // A copy past N or M reads nothing and leaves zeros, from a clamped address inside the operand,
  // so a stage that lies within K checks nothing; past K (the last stage only) the source is the
  // operand's first element.
  constexpr int kLanesPerRow = kVectorB ? kFewRowsCols / 4 : kFewRowsCols;
  constexpr int kRowsAtOnce = kFewRowsThreads / kLanesPerRow;
  constexpr int kCopiesB = kFewRowsStageK / kRowsAtOnce;
  constexpr int kCopiesA = (kRows * kFewRowsStageK + kFewRowsThreads - 1) / kFewRowsThreads;
  static_assert(kCopiesB * kRowsAtOnce == kFewRowsStageK, "every thread copies as many rows of B");
  static_assert(kFewRowsStageK == 32, "a warp copies a row of A's stage, a value of K a lane");
  const int c = static_cast<int>(threadIdx.x) % kLanesPerRow * (kVectorB ? 4 : 1);
  const int first = static_cast<int>(threadIdx.x) / kLanesPerRow;
  const int b_bytes = 4 * max(0, min(kVectorB ? 4 : 1, args.n - col0 - c));  // of each row's copy
  const long long b_step = static_cast<long long>(kRowsAtOnce) * args.ldb;
  const float* b_next =
      args.b + static_cast<long long>(first) * args.ldb + (b_bytes > 0 ? col0 + c : 0);
  const float* a_next[kCopiesA];
  bool a_row_inside[kCopiesA];
#pragma unroll
  for (int j = 0; j < kCopiesA; ++j) {
    const int r = warp + j * kFewRowsWarps;
    a_row_inside[j] = r < rows;
    a_next[j] = args.a + static_cast<long long>(row0 + min(r, rows - 1)) * args.lda + lane;
  }
  float* const b_first = few_rows_shared + first * kFewRowsCols + c;
  float* const a_first = few_rows_shared + kStageB + warp * kFewRowsStageK + lane;

  // Starts the copies of the next stage (stages are loaded in order) into buffer `stage` % kStages.
  int next_k = 0;
  const auto copy_stage = [&](int stage, auto within_k) {  // std::true_type: all of it within K
    constexpr bool kWithinK = decltype(within_k)::value;
    const int k_left = args.k - next_k;  // values of K from this stage's first on
    float* b_dst = b_first + (stage % kFewRowsStages) * kStage;
    float* a_dst = a_first + (stage % kFewRowsStages) * kStage;
    const float* src = b_next;
#pragma unroll
    for (int i = 0; i < kCopiesB; ++i) {
      const bool inside = kWithinK || first + i * kRowsAtOnce < k_left;
      const int bytes = inside ? b_bytes : 0;
      if constexpr (kVectorB) {
        cudalabs::async_copy_16_zero_fill(b_dst + i * kRowsAtOnce * kFewRowsCols,
                                          inside ? src : args.b, bytes);
      } else {
        cudalabs::async_copy_4(b_dst + i * kRowsAtOnce * kFewRowsCols, inside ? src : args.b,
                               bytes > 0);
      }
      src += b_step;
    }
#pragma unroll
    for (int j = 0; j < kCopiesA; ++j) {
      if (kRows * kFewRowsStageK % kFewRowsThreads != 0 && warp + j * kFewRowsWarps >= kRows)
        break;  // 4 rows: warps 0 to 3
      const bool inside = kWithinK || lane < k_left;
      cudalabs::async_copy_4(a_dst + j * kFewRowsWarps * kFewRowsStageK,
                             inside ? a_next[j] : args.a, inside && a_row_inside[j]);
      a_next[j] += kFewRowsStageK;
    }
    b_next += kFewRowsStageK * static_cast<long long>(args.ldb);
    next_k += kFewRowsStageK;
  };
  const auto load_stage = [&](int stage) {
    if (args.k - next_k >= kFewRowsStageK)
      copy_stage(stage, std::true_type{});
    else
      copy_stage(stage, std::false_type{});
  };

  // One group of copies per stage, empty ones past the last, so that waiting for all but the
  // newest kFewRowsStages - 2 groups always means this stage has landed.
#pragma unroll
  for (int s = 0; s < kFewRowsStages - 1; ++s) {
    if (s < stages) load_stage(s);
    cudalabs::async_copy_commit();
  }
  float acc[kRows][2] = {};
  const int k_warp = warp * 4;  // this warp's 4 values of K in each stage
  for (int stage = 0; stage < stages; ++stage) {
    cudalabs::async_copy_wait<kFewRowsStages - 2>();
    __syncthreads();  // the stage has landed for all threads, and the buffer reloaded next is read
    if (stage + kFewRowsStages - 1 < stages) load_stage(stage + kFewRowsStages - 1);
    cudalabs::async_copy_commit();
    const float* b_stage = few_rows_shared + (stage % kFewRowsStages) * kStage;
    const float* a_stage = b_stage + kStageB;
    float2 b2[4];
#pragma unroll
    for (int q = 0; q < 4; ++q)
      b2[q] = *reinterpret_cast<const float2*>(b_stage + (k_warp + q) * kFewRowsCols + 2 * lane);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const float4 a4 = *reinterpret_cast<const float4*>(a_stage + r * kFewRowsStageK + k_warp);
      const float a[4] = {a4.x, a4.y, a4.z, a4.w};
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        acc[r][0] = fmaf(a[q], b2[q].x, acc[r][0]);
        acc[r][1] = fmaf(a[q], b2[q].y, acc[r][1]);
      }
    }
  }
  cudalabs::async_copy_wait<0>();
  __syncthreads();  // every warp is done with the stages, whose memory the partial sums take
  float* partial = few_rows_shared;  // [warp][row][column]
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    *reinterpret_cast<float2*>(partial + (warp * kRows + r) * kFewRowsCols + 2 * lane) =
        make_float2(acc[r][0], acc[r][1]);
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < rows * kFewRowsCols; i += kFewRowsThreads) {
    const int r = i / kFewRowsCols, c = i % kFewRowsCols;
    if (col0 + c >= args.n) continue;
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kFewRowsWarps; ++w) sum += partial[(w * kRows + r) * kFewRowsCols + c];
    cudalabs::store_gemm_result(args.c + static_cast<long long>(row0 + r) * args.ldc + col0 + c,
                                sum, args.alpha, args.beta);
  }
  if constexpr (kSlicedK) {
    // The block's region of C is its rows and columns: the last slice to arrive sums them all.
    const TilePart part{true,
                        finish,
                        workspace.c,
                        workspace.ldc,
                        static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x),
                        static_cast<int>(gridDim.z),
                        row0,
                        rows,
                        col0,
                        min(kFewRowsCols, args.n - col0)};
    part.stored();
  }
}

}  // namespace
}  // namespace lab07
