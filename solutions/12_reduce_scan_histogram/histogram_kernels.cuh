// Lab 12 solution: the histogram of bytes, hist_global and hist_shared.
//
// hist_global: one thread per byte, one atomicAdd on the 256 global bins each. Every atomic goes to
// L2, and on skewed data most of them go to the same few addresses, which serialize.
//
// hist_shared (privatization): each block counts into its own 256 bins in shared memory, where an
// atomic costs a few cycles instead of a round trip to L2, then adds its nonzero bins to the global
// ones: 256 global atomics per block instead of one per byte. The grid is one wave of blocks, each
// thread reading 16 bytes per 128-bit load.
//
// clear_bins, merge_bins and count_head_and_tail are written once: the warp-aggregated histogram
// of the optional challenge (warp_aggregated_histogram.cuh) calls them too.
#pragma once

#include "lab.h"
#include "vectors.cuh"

#include <cstddef>
#include <cstdint>

namespace lab12 {
namespace {

__global__ void global_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                                        std::uint32_t* bins) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) atomicAdd(&bins[input[i]], 1u);
}

// Zeroes the block's bins (the caller then waits at a barrier).
__device__ __forceinline__ void clear_bins(std::uint32_t* block_bins) {
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) block_bins[b] = 0;
}

// Adds the block's bins to the global ones, skipping the empty ones (the caller waited first).
__device__ __forceinline__ void merge_bins(const std::uint32_t* block_bins, std::uint32_t* bins) {
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    const std::uint32_t n = block_bins[b];
    if (n != 0) atomicAdd(&bins[b], n);
  }
}

// The bytes before the first and after the last 16-byte vector, one per thread of the first
// threads of the grid.
__device__ __forceinline__ void count_head_and_tail(const std::uint8_t* __restrict__ input,
                                                    const VectorSplit& split, std::size_t thread,
                                                    std::uint32_t* block_bins) {
  if (thread < split.head) atomicAdd(&block_bins[input[thread]], 1u);
  if (thread < split.tail)
    atomicAdd(&block_bins[input[split.head + 16 * split.vectors + thread]], 1u);
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    shared_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                            std::uint32_t* bins) {
  __shared__ std::uint32_t block_bins[kBins];
  clear_bins(block_bins);
  __syncthreads();
  const VectorSplit split = split_for_vectors(input, count);
  const uint4* vectors = reinterpret_cast<const uint4*>(input + split.head);
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t v = thread; v < split.vectors; v += threads) {
    const uint4 chunk = vectors[v];
    const std::uint32_t words[4] = {chunk.x, chunk.y, chunk.z, chunk.w};
#pragma unroll
    for (int b = 0; b < 16; ++b) atomicAdd(&block_bins[(words[b / 4] >> (8 * (b % 4))) & 0xFF], 1u);
  }
  count_head_and_tail(input, split, thread, block_bins);
  __syncthreads();
  merge_bins(block_bins, bins);
}

}  // namespace
}  // namespace lab12
