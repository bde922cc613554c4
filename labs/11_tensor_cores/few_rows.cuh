// Lab 11, given: the kernel `best` runs for a C of at most kFewRowsMax rows (best_plan.h:
// few_rows_pays). Nothing here is a TODO.
//
// With M = 2, a 64-row tile multiplies 62 rows of zeros, and the product is a vector-matrix product
// in disguise, bound by reading B (K x N) once. Where B's rows are off 16 bytes (N odd, as a
// vocabulary of 50,257 leaves them), TMA cannot read them and `best` copied all of B first: at
// 2 x 14073 x 13664 the copy of 385 MB took longer than the product after it
// (docs/data/history/lab11_narrow_ncu_nvidia-h200/). So a block streams B in place, at 16-byte
// loads whatever its alignment: each load is the aligned 16 bytes of a row at or below the columns
// it serves, and the columns it holds shift with the row's offset from 16 bytes. A row
// kFewRowsWarps (8) rows on starts 8 x ldb values further, a whole number of 16-byte words, so it
// has the same offset: warp w takes rows w, w + 8, w + 16 ... of the block's slice of K, and its
// lanes keep the same columns from row to row, each lane 8 of them in FP32 accumulators for each
// row of C (FFMAs: at 8 rows, B's bytes still come slower than the FMA pipes take them). The
// block's kFewRowsCols columns (248: 31 lanes' worth) are then covered by every warp whatever its
// offset (its 32 lanes span 256 columns from at most 7 before the block's first). The warps' sums
// meet in shared memory, two rows of C at a time, added in a fixed order, and a thread stores a
// column of C: any alignment of C. A's slice waits in shared memory in FP32, a row of K's kRows
// values one broadcast. Each lane keeps the next kFewRowsAhead rows' loads in flight while it
// multiplies the current ones. A lane's 16 bytes that reach past column N (or lie before column 0)
// are loaded a value at a time, only the values inside B's row: nothing is read outside B. With K
// split, each block writes its slice's part of C into the workspace and the last slice of its
// columns to arrive adds them all into C (common/split_finish.cuh), or, in a stream being captured,
// one more kernel does.
#pragma once

#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "common/split_finish.cuh"
#include "tiles.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace lab11 {
namespace {

// Floats of a warp's row of partial sums in shared memory: its 256 columns, from 8 before the
// block's first (a warp's first lane starts at most 7 before it).
inline constexpr int kFewRowsPartialCols = 32 * 8 + 8;
// Rows of C whose partial sums meet in shared memory at once.
inline constexpr int kFewRowsSumRows = 2;

// Floats of shared memory the kernel for kRows rows takes: A's slice (kRows values of each of
// kFewRowsMaxSliceK), or, once it is used, the warps' partial sums.
template <int kRows>
struct FewRowsShared {
  static constexpr int kASlice = kFewRowsMaxSliceK * kRows;
  static constexpr int kPartials = kFewRowsWarps * kFewRowsSumRows * kFewRowsPartialCols;
  static constexpr int kFloats = kASlice > kPartials ? kASlice : kPartials;
};

// How a lane loads its 16 bytes of a row: whole (all 8 columns inside B's row), a value at a
// time (some inside), or not at all.
enum class FewRowsLoad { kWhole, kValues, kNone };

// The lane's 8 BF16 values of the row at `aligned` (16-byte aligned) whose first column is
// `first_col`: zeros outside columns 0 .. n - 1.
__device__ __forceinline__ uint4 few_rows_load(const __nv_bfloat16* aligned, FewRowsLoad how,
                                               int first_col, int n) {
  if (how == FewRowsLoad::kWhole) return __ldg(reinterpret_cast<const uint4*>(aligned));
  unsigned words[4] = {0u, 0u, 0u, 0u};
  if (how == FewRowsLoad::kValues) {
    const auto* halves = reinterpret_cast<const unsigned short*>(aligned);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int col = first_col + j;
      const unsigned value = col >= 0 && col < n ? __ldg(halves + j) : 0u;
      words[j / 2] |= value << (16 * (j % 2));
    }
  }
  return make_uint4(words[0], words[1], words[2], words[3]);
}

template <int kRows>
__global__ void __launch_bounds__(kFewRowsThreads, few_rows_blocks_per_sm(kRows))
    few_rows_kernel(cudalabs::Bf16GemmArgs args, int slice_k, cudalabs::SplitFinish finish) {
  static_assert(kRows % kFewRowsSumRows == 0 && kRows <= kFewRowsMax, "rows in pairs");
  static_assert(kFewRowsCols <= kFewRowsThreads && kFewRowsCols % 8 == 0, "a column a thread");
  __shared__ __align__(16) float shared[FewRowsShared<kRows>::kFloats];
  __shared__ int last_part;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int k0 = static_cast<int>(blockIdx.y) * slice_k;
  const int k_len = min(slice_k, args.k - k0);
  const int col0 = static_cast<int>(blockIdx.x) * kFewRowsCols;

  // This warp's rows of the slice: w, w + 8, ...; their offset from 16 bytes, in values, and so
  // this lane's columns: first_col .. first_col + 7.
  const int rows_of_warp = k_len > warp ? (k_len - warp + kFewRowsWarps - 1) / kFewRowsWarps : 0;
  const __nv_bfloat16* row_start =
      args.b + static_cast<long long>(k0 + min(warp, k_len - 1)) * args.ldb + col0;
  const int offset = static_cast<int>(reinterpret_cast<std::uintptr_t>(row_start) % 16) / 2;
  const int first_col = col0 - offset + 8 * lane;
  const FewRowsLoad how = first_col >= 0 && first_col + 8 <= args.n ? FewRowsLoad::kWhole
                          : first_col < args.n                      ? FewRowsLoad::kValues
                                                                    : FewRowsLoad::kNone;
  const __nv_bfloat16* next_row = row_start - offset + 8 * lane;
  const long long row_step = static_cast<long long>(kFewRowsWarps) * args.ldb;

  // The first rows' loads, in flight while A's slice is staged.
  uint4 next[kFewRowsAhead];
#pragma unroll
  for (int i = 0; i < kFewRowsAhead; ++i) {
    next[i] = i < rows_of_warp ? few_rows_load(next_row, how, first_col, args.n)
                               : make_uint4(0u, 0u, 0u, 0u);
    next_row += row_step;
  }

  // A's slice in FP32: shared[k * kRows + r], zeros past M.
  const auto* a_bits = reinterpret_cast<const unsigned short*>(args.a);
  for (int i = static_cast<int>(threadIdx.x); i < kRows * k_len; i += kFewRowsThreads) {
    const int r = i / k_len, k = i % k_len;
    const unsigned value =
        r < args.m ? __ldg(a_bits + static_cast<long long>(r) * args.lda + k0 + k) : 0u;
    shared[k * kRows + r] = __uint_as_float(value << 16);
  }
  __syncthreads();

  // Rows in groups of kFewRowsAhead: the next group's loads in flight while this one's are
  // multiplied. Whether a row lies in the slice is the warp's alike.
  float acc[kRows][8] = {};
  for (int group = 0; group < rows_of_warp; group += kFewRowsAhead) {
    uint4 current[kFewRowsAhead];
#pragma unroll
    for (int i = 0; i < kFewRowsAhead; ++i) {
      current[i] = next[i];
      if (group + kFewRowsAhead + i < rows_of_warp)
        next[i] = few_rows_load(next_row, how, first_col, args.n);
      next_row += row_step;
    }
#pragma unroll
    for (int i = 0; i < kFewRowsAhead; ++i) {
      if (group + i >= rows_of_warp) break;
      // The row's kRows values of A, a broadcast of 8 or 16 bytes at a time
      float a_values[kRows];
      const float* a = shared + (warp + kFewRowsWarps * (group + i)) * kRows;
      if constexpr (kRows % 4 == 0) {
#pragma unroll
        for (int r = 0; r < kRows; r += 4) {
          const float4 four = *reinterpret_cast<const float4*>(a + r);
          a_values[r] = four.x;
          a_values[r + 1] = four.y;
          a_values[r + 2] = four.z;
          a_values[r + 3] = four.w;
        }
      } else {
#pragma unroll
        for (int r = 0; r < kRows; r += 2) {
          const float2 two = *reinterpret_cast<const float2*>(a + r);
          a_values[r] = two.x;
          a_values[r + 1] = two.y;
        }
      }
      const unsigned words[4] = {current[i].x, current[i].y, current[i].z, current[i].w};
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float b =
            __uint_as_float(j % 2 == 0 ? words[j / 2] << 16 : words[j / 2] & 0xffff0000u);
#pragma unroll
        for (int r = 0; r < kRows; ++r) acc[r][j] = fmaf(a_values[r], b, acc[r][j]);
      }
    }
  }

  // The warps' sums, two rows of C at a time: warp w's column c at partial[w][row][c - col0 + 8];
  // thread t sums column col0 + t over the warps in order and stores it: C itself with K whole,
  // this slice's part of the workspace (args.c: alpha 1, beta 0) with K split.
  float* part = args.c + static_cast<long long>(blockIdx.y) * args.m * args.ldc;
  const int thread = static_cast<int>(threadIdx.x), col = col0 + thread;
#pragma unroll
  for (int pair = 0; pair < kRows; pair += kFewRowsSumRows) {
    if (pair >= args.m) break;  // the same for the whole block
    __syncthreads();            // A's slice, or the last pair's sums, read
#pragma unroll
    for (int h = 0; h < kFewRowsSumRows; ++h)
#pragma unroll
      for (int j = 0; j < 8; ++j)
        shared[(warp * kFewRowsSumRows + h) * kFewRowsPartialCols + 8 * lane + j - offset + 8] =
            acc[pair + h][j];
    __syncthreads();
    if (thread < kFewRowsCols && col < args.n) {
#pragma unroll
      for (int h = 0; h < kFewRowsSumRows; ++h) {
        const int row = pair + h;
        if (row >= args.m) break;
        float sum = 0.0f;
#pragma unroll
        for (int w = 0; w < kFewRowsWarps; ++w)
          sum += shared[(w * kFewRowsSumRows + h) * kFewRowsPartialCols + thread + 8];
        cudalabs::store_gemm_result(part + static_cast<long long>(row) * args.ldc + col, sum,
                                    args.alpha, args.beta);
      }
    }
  }
  if (gridDim.y > 1 && finish.in_place()) {
    cudalabs::finish_part(finish, args.c, args.ldc, static_cast<int>(blockIdx.x),
                          static_cast<int>(gridDim.y), 0, args.m, col0,
                          min(kFewRowsCols, args.n - col0), thread, kFewRowsThreads, &last_part,
                          [] { __syncthreads(); });
  }
}

}  // namespace
}  // namespace lab11
