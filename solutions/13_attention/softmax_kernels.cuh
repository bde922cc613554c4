// Lab 13 solution: the row softmax (steps 1 to 3 of the core).
//
// softmax_naive: one thread per row, three passes (the maximum, the sum of exp(x - max), the
// outputs). Subtracting the maximum first keeps every exponential <= 1: exp(x) alone overflows FP32
// from x = 88.7 on. The 32 lanes of a warp read 32 rows, one element each, so every load touches 32
// different 32-byte sectors: the kernel is as uncoalesced as a kernel can be.
//
// softmax_online: one warp per row; the lanes read consecutive columns (coalesced). One pass keeps
// the running maximum m and the sum d of exp(x - m) together (Milakov and Gimelshein's online
// softmax): when an element raises the maximum, the sum so far is rescaled by exp(m_old - m_new).
// The lanes' (m, d) pairs then meet the same way: the row's maximum M is the warp's maximum of
// the m, and its sum the warp's sum of the d exp(m - M) (a lane that saw only -infinity adds
// 0 exp(-inf) = 0). A second pass writes exp(x - M) / sum: two reads of the row instead of three.
// The two passes are functions of their own (online_pass, write_pass), which step 3 runs again
// with a block's stride.
//
// softmax_fused: one block per row, each thread keeping its kItems values in registers (rows of up
// to 4096 columns): one read and one write of the row, the traffic of a copy. The block's maximum
// and sum go through warp shuffles and 8 words of shared memory (reductions.cuh, given). Longer
// rows (kItems == 0) take step 2's two passes with the whole block, the threads' pairs meeting as
// the lanes' do in step 2, over the block.
//
// All exponentials are exp2f of (x - m) * log2(e): one multiply-add and the SFU's ex2.
#pragma once

#include "lab.h"
#include "reductions.cuh"

#include <cmath>
#include <cstddef>

namespace lab13 {

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;    // every lane of a warp, for __shfl_xor_sync
inline constexpr float kLog2e = 1.4426950408889634f;  // exp(x) = exp2(x log2(e))

// exp(x - m) for a row maximum m (finite); exp(-inf - m) = 0.
__device__ __forceinline__ float exp_below(float x, float m) {
  return exp2f((x - m) * kLog2e);
}

// [online_pass]
// Adds columns first, first + stride, ... of row x to the running pair (m, d).
__device__ __forceinline__ void online_pass(const float* x, int columns, int first, int stride,
                                            float& m, float& d) {
#pragma unroll 4
  for (int c = first; c < columns; c += stride) {
    const float value = x[c];
    if (value > m) {
      d = (m == -INFINITY ? 0.0f : d * exp_below(m, value)) + 1.0f;  // the old sum, rescaled
      m = value;
    } else if (value != -INFINITY) {
      d += exp_below(value, m);
    }
  }
}

// Writes y[c] = exp(x[c] - m) * inverse for columns first, first + stride, ...
__device__ __forceinline__ void write_pass(const float* x, float* y, int columns, int first,
                                           int stride, float m, float inverse) {
#pragma unroll 4
  for (int c = first; c < columns; c += stride) y[c] = exp_below(x[c], m) * inverse;
}
// [online_pass]

namespace {

__global__ void __launch_bounds__(kSoftmaxThreads) softmax_naive_kernel(SoftmaxArgs args) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= args.rows) return;
  const float* x = args.input + static_cast<std::size_t>(row) * args.columns;
  float* y = args.output + static_cast<std::size_t>(row) * args.columns;
  float m = -INFINITY;
  for (int c = 0; c < args.columns; ++c) m = fmaxf(m, x[c]);
  float sum = 0.0f;
  for (int c = 0; c < args.columns; ++c) sum += exp_below(x[c], m);
  const float inverse = 1.0f / sum;
  for (int c = 0; c < args.columns; ++c) y[c] = exp_below(x[c], m) * inverse;
}

// [online]
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_online_kernel(SoftmaxArgs args) {
  const int lane = threadIdx.x % 32;
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= args.rows) return;  // a whole warp leaves together
  const float* x = args.input + static_cast<std::size_t>(row) * args.columns;
  float* y = args.output + static_cast<std::size_t>(row) * args.columns;
  float m = -INFINITY, d = 0.0f;
  online_pass(x, args.columns, lane, 32, m, d);
  // The lanes' pairs meet: the row's maximum, and the sum of their sums rescaled to it.
  const float row_max = warp_max(m);
  const float row_sum = warp_sum(d * exp_below(m, row_max));
  write_pass(x, y, args.columns, lane, 32, row_max, 1.0f / row_sum);
}
// [online]

// [fused]
template <int kItems>
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_fused_kernel(SoftmaxArgs args) {
  __shared__ float scratch[kSoftmaxThreads / 32];
  const std::size_t row = blockIdx.x;
  const float* x = args.input + row * args.columns;
  float* y = args.output + row * args.columns;
  if constexpr (kItems > 0) {
    // The row in registers: thread t holds columns t, t + 256, ... (each load coalesced).
    float values[kItems];
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int c = threadIdx.x + i * kSoftmaxThreads;
      values[i] = c < args.columns ? x[c] : -INFINITY;
      m = fmaxf(m, values[i]);
    }
    m = block_max(m, scratch);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      values[i] = exp_below(values[i], m);
      sum += values[i];
    }
    const float inverse = 1.0f / block_sum(sum, scratch);
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int c = threadIdx.x + i * kSoftmaxThreads;
      if (c < args.columns) y[c] = values[i] * inverse;
    }
  } else {
    // Longer rows: step 2's passes with the whole block. The threads' pairs (m, d) meet as the
    // block's maximum M and the sum of the d exp(m - M) (0 for a thread that saw only -infinity).
    float m = -INFINITY, d = 0.0f;
    online_pass(x, args.columns, threadIdx.x, kSoftmaxThreads, m, d);
    const float row_max = block_max(m, scratch);
    const float row_sum = block_sum(d * exp_below(m, row_max), scratch);
    write_pass(x, y, args.columns, threadIdx.x, kSoftmaxThreads, row_max, 1.0f / row_sum);
  }
}
// [fused]

}  // namespace
}  // namespace lab13
