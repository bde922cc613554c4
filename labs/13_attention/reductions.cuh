/// @file labs/13_attention/reductions.cuh
/// @brief Lab 13, given: the maximum and the sum over a warp and over a block of kSoftmaxThreads
/// threads (lab 12's reductions: warp shuffles, then one value per warp through shared memory),
/// for the softmax's steps 2 and 3. Include it from your kernels.cu; nothing here is a TODO.
#pragma once

#include "lab.h"

#include <cmath>

namespace lab13 {

/// The maximum of `value` over the warp, returned to every lane (5 shuffles; every lane must call).
__device__ __forceinline__ float warp_max(float value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value = fmaxf(value, __shfl_xor_sync(0xFFFFFFFFu, value, offset));
  return value;
}

/// The sum of `value` over the warp, returned to every lane (as warp_max).
__device__ __forceinline__ float warp_sum(float value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xFFFFFFFFu, value, offset);
  return value;
}

/// The maximum of `value` over the block, returned to every thread. `scratch` holds
/// kSoftmaxThreads / 32 floats of shared memory; two barriers inside, so every thread of the block
/// must call it, and `scratch` is free again when it returns.
__device__ __forceinline__ float block_max(float value, float* scratch) {
  value = warp_max(value);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = value;
  __syncthreads();
  value = -INFINITY;
#pragma unroll
  for (int w = 0; w < kSoftmaxThreads / 32; ++w) value = fmaxf(value, scratch[w]);
  __syncthreads();  // scratch is free again
  return value;
}

/// The sum of `value` over the block, returned to every thread (as block_max).
__device__ __forceinline__ float block_sum(float value, float* scratch) {
  value = warp_sum(value);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = value;
  __syncthreads();
  value = 0.0f;
#pragma unroll
  for (int w = 0; w < kSoftmaxThreads / 32; ++w) value += scratch[w];
  __syncthreads();
  return value;
}

}  // namespace lab13
