// Lab 13 solution: the row softmax.
//
// softmax_naive: one thread per row, three passes (the maximum, the sum of exp(x - max), the
// outputs). Subtracting the maximum first keeps every exponential <= 1: exp(x) alone overflows FP32
// from x = 88.7 on. The 32 lanes of a warp read 32 rows, one element each, so every load touches 32
// different 32-byte sectors: the kernel is as uncoalesced as a kernel can be.
//
// softmax_online: one warp per row; the lanes read consecutive columns (coalesced). One pass keeps
// the running maximum m and the sum d of exp(x - m) together (Milakov and Gimelshein's online
// softmax): when an element raises the maximum, the sum so far is rescaled by exp(m_old - m_new).
// The lanes' (m, d) pairs combine the same way through 5 shuffles, and a second pass writes
// exp(x - m) / d: two reads of the row instead of three.
//
// softmax_fused: one block per row, each thread keeping its kItems values in registers (rows of up
// to 4096 columns): one read and one write of the row, the traffic of a copy. The block's maximum
// and sum go through warp shuffles and 8 words of shared memory. Longer rows (kItems == 0) take the
// online pass and the write pass with the whole block.
//
// All exponentials are exp2f of (x - m) * log2(e): one multiply-add and the SFU's ex2.
#pragma once

#include "lab.h"

#include <cmath>

namespace lab13 {
namespace {

constexpr unsigned kSoftmaxFullMask = 0xFFFFFFFFu;
constexpr float kLog2e = 1.4426950408889634f;

// exp(x - m) for a row maximum m (finite); exp(-inf - m) = 0.
__device__ __forceinline__ float exp_below(float x, float m) {
  return exp2f((x - m) * kLog2e);
}

// The online pair (maximum, sum of exp(x - maximum)) after adding (m2, d2) to (m1, d1). A pair
// whose maximum is -inf has seen only masked values and adds nothing.
__device__ __forceinline__ void combine(float& m1, float& d1, float m2, float d2) {
  const float m = fmaxf(m1, m2);
  if (m == -INFINITY) return;
  d1 = (m1 == -INFINITY ? 0.0f : d1 * exp_below(m1, m)) +
       (m2 == -INFINITY ? 0.0f : d2 * exp_below(m2, m));
  m1 = m;
}

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
#pragma unroll 4
  for (int c = lane; c < args.columns; c += 32) {
    const float value = x[c];
    if (value > m) {
      d = (m == -INFINITY ? 0.0f : d * exp_below(m, value)) + 1.0f;  // the old sum, rescaled
      m = value;
    } else if (value != -INFINITY) {
      d += exp_below(value, m);
    }
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other_m = __shfl_xor_sync(kSoftmaxFullMask, m, offset);
    const float other_d = __shfl_xor_sync(kSoftmaxFullMask, d, offset);
    combine(m, d, other_m, other_d);
  }
  const float inverse = 1.0f / d;
#pragma unroll 4
  for (int c = lane; c < args.columns; c += 32) y[c] = exp_below(x[c], m) * inverse;
}
// [online]

// The maximum over the block, in every thread (two barriers: call between barriers only).
__device__ __forceinline__ float block_max(float value, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value = fmaxf(value, __shfl_xor_sync(kSoftmaxFullMask, value, offset));
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = -INFINITY;
#pragma unroll
  for (int w = 0; w < kSoftmaxThreads / 32; ++w) value = fmaxf(value, scratch[w]);
  __syncthreads();  // scratch is free again
  return value;
}

// The sum over the block, in every thread (as block_max).
__device__ __forceinline__ float block_sum(float value, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(kSoftmaxFullMask, value, offset);
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = 0.0f;
#pragma unroll
  for (int w = 0; w < kSoftmaxThreads / 32; ++w) value += scratch[w];
  __syncthreads();
  return value;
}

// [fused]
template <int kItems>
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_fused_kernel(SoftmaxArgs args) {
  __shared__ float scratch[kSoftmaxThreads / 32];
  __shared__ float pair_m[kSoftmaxThreads / 32], pair_d[kSoftmaxThreads / 32];
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
    // Longer rows: the online pass with the whole block, the (m, d) pairs combined through shared
    // memory, then the write pass.
    float m = -INFINITY, d = 0.0f;
    for (int c = threadIdx.x; c < args.columns; c += kSoftmaxThreads) combine(m, d, x[c], 1.0f);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other_m = __shfl_xor_sync(kSoftmaxFullMask, m, offset);
      const float other_d = __shfl_xor_sync(kSoftmaxFullMask, d, offset);
      combine(m, d, other_m, other_d);
    }
    if (threadIdx.x % 32 == 0) {
      pair_m[threadIdx.x / 32] = m;
      pair_d[threadIdx.x / 32] = d;
    }
    __syncthreads();
    m = pair_m[0];
    d = pair_d[0];
#pragma unroll
    for (int w = 1; w < kSoftmaxThreads / 32; ++w) combine(m, d, pair_m[w], pair_d[w]);
    const float inverse = 1.0f / d;
    for (int c = threadIdx.x; c < args.columns; c += kSoftmaxThreads)
      y[c] = exp_below(x[c], m) * inverse;
  }
}
// [fused]

}  // namespace
}  // namespace lab13
