// Lab 12 solution: the sum's ladder.
//
// sum_atomic: every thread adds its element to the one output with atomicAdd. The additions to one
// address are done one at a time by the L2 cache's atomic unit, so the kernel runs at the rate of
// one address's atomics, not of memory: the floor every later rung climbs from. The order of the
// additions changes from run to run, and so do the last bits of the sum.
//
// sum_shared_tree: a block loads 256 elements into shared memory and halves them 8 times (thread t
// adds element t + stride to element t, a barrier between levels). Sequential addressing (the
// active threads are the first `stride`, reading the upper half) keeps whole warps idle rather than
// every other lane, and reads consecutive words: no bank conflicts. One atomic per block.
//
// sum_warp_shuffle: the first 5 levels of the tree inside each warp with __shfl_down_sync (lanes
// read each other's registers: no shared memory, no barrier), the 8 warps' sums through shared
// memory once, one barrier.
//
// sum_multi_element: a grid of one wave (the blocks that fit on the GPU at once), each thread
// adding its share of the array with 128-bit loads, four of them in flight per step, before one
// block reduction: the reductions and atomics are now paid once per block of millions of
// elements, and the kernel is a stream of loads. The elements before the first 16-byte boundary and
// after the last whole vector are added by the first threads of the grid, one each.
//
// warp_sum, block_sum and thread_sum are written once, and called again by the optional challenge:
// the one-pass sum (one_pass_sum.cuh) and the look-back scan's warp sum (lookback_scan.cuh).
#pragma once

#include "lab.h"
#include "vectors.cuh"

#include <cstddef>

namespace lab12 {
namespace {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

// The sum of `value` over the warp, in lane 0: 5 steps, each halving the lanes that hold a sum.
// (float for the sums; the look-back scan adds unsigned 32-bit values with it.)
// [warp_sum]
template <class T>
__device__ __forceinline__ T warp_sum(T value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_down_sync(kFullMask, value, offset);
  return value;
}
// [warp_sum]

// The sum of `value` over the block, in thread 0. Every thread of the block calls it; a second
// call in the same kernel must follow a barrier (it reuses warp_sums).
// [block_sum]
__device__ __forceinline__ float block_sum(float value) {
  constexpr int kWarps = kThreadsPerBlock / 32;
  __shared__ float warp_sums[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  value = warp_sum(value);
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) value = warp_sum(lane < kWarps ? warp_sums[lane] : 0.0f);
  return value;
}
// [block_sum]

__global__ void atomic_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) atomicAdd(sum, input[i]);
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    shared_tree_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  __shared__ float partial[kThreadsPerBlock];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < count ? input[i] : 0.0f;
  __syncthreads();
  for (int stride = kThreadsPerBlock / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();  // every sum of this level is written before the next level reads it
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    warp_shuffle_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float total = block_sum(i < count ? input[i] : 0.0f);
  if (threadIdx.x == 0) atomicAdd(sum, total);
}

// This thread's share: its grid-stride float4s (four loads issued before the first is added, so
// that each thread keeps 64 bytes in flight), then, for the first threads of the grid, one element
// of the head and one of the tail.
// [thread_sum]
__device__ __forceinline__ float thread_sum(const float* __restrict__ input, std::size_t count) {
  const VectorSplit split = split_for_vectors(input, count);
  const float4* vectors = reinterpret_cast<const float4*>(input + split.head);
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  auto add = [&acc](const float4 v) {
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  };
  std::size_t v = thread;
  for (; v + 3 * threads < split.vectors; v += 4 * threads) {
    const float4 a = vectors[v], b = vectors[v + threads], c = vectors[v + 2 * threads],
                 d = vectors[v + 3 * threads];
    add(a);
    add(b);
    add(c);
    add(d);
  }
  for (; v < split.vectors; v += threads) add(vectors[v]);
  float total = (acc.x + acc.y) + (acc.z + acc.w);
  if (thread < split.head) total += input[thread];
  if (thread < split.tail) total += input[split.head + 4 * split.vectors + thread];
  return total;
}
// [thread_sum]

__global__ void __launch_bounds__(kThreadsPerBlock)
    multi_element_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  const float total = block_sum(thread_sum(input, count));
  if (threadIdx.x == 0) atomicAdd(sum, total);
}

}  // namespace
}  // namespace lab12
