// Lab 11, given: the kernel `best` runs for a C of at most kFewColumnsMax columns (best_plan.h:
// few_columns_pays).
// Nothing here is a TODO.
//
// With N = 4, a 128 x 64 tile of the warp-specialized kernel multiplies 60 columns of zeros, B's
// rows must be copied before TMA can read them (8 bytes apart), and the product is a
// matrix-vector product in disguise, bound by reading A once: one launch of 64-wide tiles took
// 17.5 us at 130 x 4 x 2256 to read 0.6 MB (Nsight Compute), and more slices of K did not make
// them faster at 5040 x 8 x 2296 (docs/data/history/gemm_random_shapes_s18/). So each warp streams
// kFewColumnsWarpRows rows of A over its block's slice of K (gridDim.y slices), its lanes side by
// side along K, 8 values a lane (one 16-byte load a row where A's rows allow it, element by element
// otherwise; the next 8 loaded while these are multiplied), and multiplies them with FP32 FMAs: a
// few columns leave the tensor cores nothing to fill. The block's slice of B, at most
// kFewColumnsMaxSliceK x kCols values, is converted to FP32 in shared memory first, where every
// lane reads the kCols values of its 8 rows of B (padded every 8 rows so that the lanes' 128-bit
// loads do not collide). The lanes' sums meet through shuffles. With K split, each block writes its
// slice's part of C into the workspace and the last slice of its rows to arrive adds them all into
// C (common/split_finish.cuh), or, in a stream being captured, one more kernel does.
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

// Floats of the shared B for `k` rows of kCols: a row of kCols floats each, 4 more after every 8
// rows (a lane's 8 rows are contiguous; lane l's start 4 l banks on from lane 0's).
template <int kCols>
__host__ __device__ constexpr int few_columns_b_offset(int k) {
  return k * kCols + k / 8 * 4;
}

// Eight BF16 values of A as loaded, converted only when multiplied (so that the next chunk's loads
// are in flight while this chunk's FMAs run): one 16-byte load when kVector, else eight 2-byte
// ones.
template <bool kVector>
struct EightValues {
  unsigned bits[kVector ? 4 : 8];  ///< two values a word (kVector), else one a word

  // The eight values at `p`, `valid` of them (the rest zero): one 16-byte load when kVector and
  // all 8 are valid.
  __device__ __forceinline__ void load(const __nv_bfloat16* p, int valid) {
    if constexpr (kVector) {
      if (valid >= 8) {
        const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
        bits[0] = raw.x;
        bits[1] = raw.y;
        bits[2] = raw.z;
        bits[3] = raw.w;
        return;
      }
      const auto* halves = reinterpret_cast<const unsigned short*>(p);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const unsigned low = 2 * i < valid ? __ldg(halves + 2 * i) : 0u;
        const unsigned high = 2 * i + 1 < valid ? __ldg(halves + 2 * i + 1) : 0u;
        bits[i] = low | high << 16;
      }
    } else {
      const auto* halves = reinterpret_cast<const unsigned short*>(p);
#pragma unroll
      for (int i = 0; i < 8; ++i) bits[i] = i < valid ? __ldg(halves + i) : 0u;
    }
  }
  // Value i as a float.
  __device__ __forceinline__ float operator[](int i) const {
    if constexpr (kVector) {
      return __uint_as_float(i % 2 == 0 ? bits[i / 2] << 16 : bits[i / 2] & 0xFFFF0000u);
    } else {
      return __uint_as_float(bits[i] << 16);
    }
  }
};

template <int kCols, bool kVector>
__global__ void __launch_bounds__(kFewColumnsThreads, kFewColumnsBlocksPerSm)
    few_columns_kernel(cudalabs::Bf16GemmArgs args, int slice_k, cudalabs::SplitFinish finish) {
  __shared__ __align__(16) float b_shared[few_columns_b_offset<kCols>(kFewColumnsMaxSliceK)];
  __shared__ int last_part;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int k0 = static_cast<int>(blockIdx.y) * slice_k;
  const int k_len = min(slice_k, args.k - k0);
  const int block_row0 = static_cast<int>(blockIdx.x) * kFewColumnsBlockRows;

  // The warp's rows (past M: the last row, read and never stored), from this slice's first value.
  const __nv_bfloat16* a_row[kFewColumnsWarpRows];
#pragma unroll
  for (int r = 0; r < kFewColumnsWarpRows; ++r) {
    const int row = min(block_row0 + warp * kFewColumnsWarpRows + r, args.m - 1);
    a_row[r] = args.a + static_cast<long long>(row) * args.lda + k0;
  }
  // The first 8 values of each row, in flight while B is staged.
  EightValues<kVector> a[kFewColumnsWarpRows], next[kFewColumnsWarpRows];
  if (lane * 8 < k_len) {
#pragma unroll
    for (int r = 0; r < kFewColumnsWarpRows; ++r)
      next[r].load(a_row[r] + lane * 8, k_len - lane * 8);
  }

  // This slice's B in FP32, zeros past N and up to the lanes' last group of 8 rows; kBatch loads a
  // thread in flight at once, so that the staging takes a few L2 trips rather than one a value.
  constexpr int kBatch = 8;
  const int b_rows = (k_len + 7) / 8 * 8;
  const auto* b_bits = reinterpret_cast<const unsigned short*>(args.b);
  for (int first = static_cast<int>(threadIdx.x); first < b_rows * kCols;
       first += kFewColumnsThreads * kBatch) {
    unsigned value[kBatch];
#pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      const int i = first + q * kFewColumnsThreads, k = i / kCols, c = i % kCols;
      value[q] = k < k_len && c < args.n
                     ? __ldg(b_bits + static_cast<long long>(k0 + k) * args.ldb + c)
                     : 0u;
    }
#pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      const int i = first + q * kFewColumnsThreads;
      if (i < b_rows * kCols)
        b_shared[few_columns_b_offset<kCols>(i / kCols) + i % kCols] =
            __uint_as_float(value[q] << 16);
    }
  }
  __syncthreads();

  float acc[kFewColumnsWarpRows][kCols] = {};
  int k = lane * 8;
  for (; k < k_len; k += 32 * 8) {
#pragma unroll
    for (int r = 0; r < kFewColumnsWarpRows; ++r) a[r] = next[r];
    if (k + 32 * 8 < k_len) {  // the next chunk's loads, in flight during this one's FMAs
#pragma unroll
      for (int r = 0; r < kFewColumnsWarpRows; ++r)
        next[r].load(a_row[r] + k + 32 * 8, k_len - k - 32 * 8);
    }
    const float* b = b_shared + few_columns_b_offset<kCols>(k);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float b_row[kCols];
#pragma unroll
      for (int c = 0; c < kCols; c += 4) {
        const float4 v = *reinterpret_cast<const float4*>(b + j * kCols + c);
        b_row[c] = v.x;
        b_row[c + 1] = v.y;
        b_row[c + 2] = v.z;
        b_row[c + 3] = v.w;
      }
#pragma unroll
      for (int r = 0; r < kFewColumnsWarpRows; ++r) {
        const float value = a[r][j];
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[r][c] = fmaf(value, b_row[c], acc[r][c]);
      }
    }
  }

  // The lanes' sums, then lane r * kCols + c stores row r, column c: C itself with K whole, this
  // slice's part of the workspace (args.c: alpha 1, beta 0) with K split.
  float* part = args.c + static_cast<long long>(blockIdx.y) * args.m * args.ldc;
#pragma unroll
  for (int r = 0; r < kFewColumnsWarpRows; ++r) {
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      float sum = acc[r][c];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
      const int row = block_row0 + warp * kFewColumnsWarpRows + r;
      if (lane == r * kCols + c && row < args.m && c < args.n)
        cudalabs::store_gemm_result(part + static_cast<long long>(row) * args.ldc + c, sum,
                                    args.alpha, args.beta);
    }
  }
  if (gridDim.y > 1 && finish.in_place()) {
    cudalabs::finish_part(
        finish, args.c, args.ldc, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.y),
        block_row0, min(kFewColumnsBlockRows, args.m - block_row0), 0, args.n,
        static_cast<int>(threadIdx.x), kFewColumnsThreads, &last_part, [] { __syncthreads(); });
  }
}

}  // namespace
}  // namespace lab11
