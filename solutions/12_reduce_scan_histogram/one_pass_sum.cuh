// Lab 12 solution, optional challenge A: sum_one_pass.
//
// sum_multi_element's grid and block sums, and instead of float atomics each block writes its
// partial sum and takes a ticket; the block that takes the last one sums every partial in block
// order. Its result does not depend on which block finished first: the same bits every run. It
// calls the core's thread_sum and block_sum (sum_kernels.cuh) unchanged.
#pragma once

#include "lab.h"
#include "sum_kernels.cuh"

#include <cstddef>

namespace lab12 {
namespace {

// [one_pass]
__global__ void __launch_bounds__(kThreadsPerBlock)
    one_pass_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum,
                        float* partials, unsigned int* ticket) {
  __shared__ bool last_block;
  const float block_total = block_sum(thread_sum(input, count));
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_total;
    // Release: the partial is visible to the whole GPU before the ticket that announces it.
    __threadfence();
    last_block = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;
  // Acquire: every other block fenced its partial before taking its ticket, and this block took
  // the last ticket, so all of them are visible now. __ldcg reads them from L2, never from a stale
  // line of this SM's L1.
  __threadfence();
  float value = 0.0f;
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) value += __ldcg(&partials[b]);
  value = block_sum(value);  // the barrier above separates the two calls
  if (threadIdx.x == 0) *sum = value;
}
// [one_pass]

}  // namespace
}  // namespace lab12
