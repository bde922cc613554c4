// Lab 12 solution, optional challenge C: hist_warp_aggregated.
//
// hist_shared's privatized bins, but shared-memory atomics to one address from the lanes of a warp
// still serialize. __match_any_sync tells each lane which lanes of its warp hold the same byte
// value; the lowest of them adds their count with one atomic. On uniform bytes few lanes match and
// the match costs more than it saves; on skewed bytes most lanes match and one atomic replaces up
// to 32. It calls the core's clear_bins, count_head_and_tail and merge_bins
// (histogram_kernels.cuh) unchanged.
#pragma once

#include "histogram_kernels.cuh"
#include "lab.h"
#include "sum_kernels.cuh"
#include "vectors.cuh"

#include <cstddef>
#include <cstdint>

namespace lab12 {
namespace {

// One atomic per distinct value among the warp's lanes that hold a valid byte. Every lane of the
// warp calls it together.
// [aggregated_add]
__device__ __forceinline__ void add_aggregated(std::uint32_t* block_bins, std::uint32_t value,
                                               bool valid) {
  // An invalid lane looks for 256, which no byte is: it matches only the other invalid lanes.
  const unsigned peers = __match_any_sync(kFullMask, valid ? value : kBins);
  const int leader = __ffs(peers) - 1;
  if (valid && static_cast<int>(threadIdx.x % 32) == leader)
    atomicAdd(&block_bins[value], static_cast<std::uint32_t>(__popc(peers)));
}
// [aggregated_add]

__global__ void __launch_bounds__(kThreadsPerBlock)
    warp_aggregated_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                                     std::uint32_t* bins) {
  __shared__ std::uint32_t block_bins[kBins];
  clear_bins(block_bins);
  __syncthreads();
  const VectorSplit split = split_for_vectors(input, count);
  const uint4* vectors = reinterpret_cast<const uint4*>(input + split.head);
  const int lane = threadIdx.x % 32;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  // The loop runs the same number of times in every lane of a warp (its bound is the warp's first
  // vector), so that all 32 lanes reach each __match_any_sync; lanes past the end match as invalid.
  for (std::size_t warp_first = thread - lane; warp_first < split.vectors; warp_first += threads) {
    const std::size_t v = warp_first + lane;
    const bool valid = v < split.vectors;
    const uint4 chunk = valid ? vectors[v] : make_uint4(0, 0, 0, 0);
    const std::uint32_t words[4] = {chunk.x, chunk.y, chunk.z, chunk.w};
#pragma unroll
    for (int b = 0; b < 16; ++b)
      add_aggregated(block_bins, (words[b / 4] >> (8 * (b % 4))) & 0xFF, valid);
  }
  count_head_and_tail(input, split, thread, block_bins);
  __syncthreads();
  merge_bins(block_bins, bins);
}

}  // namespace
}  // namespace lab12
