// Lab 12 solution, optional challenge B: scan_lookback, one pass (Merrill and Garland's decoupled
// look-back).
//
// A block takes the next tile number from a counter (so every tile before it has started), scans
// its tile with the core's tile scan (load_tile, scan_warp_segment, combine_warps: scan_kernels.cuh
// and scan_tile.cuh), and publishes the tile's total (the aggregate) in its status word. Warp 0
// then looks back: its 32 lanes read the status words of the 32 tiles before it, wait until each
// has published something, and add the aggregates up to the nearest tile that has published its
// inclusive prefix (the sum of everything up to and including that tile), whose prefix ends the
// look-back; with no such tile in the window the window moves 32 tiles back. The block publishes
// its own inclusive prefix, which shortens the look-back of the tiles after it, and writes its
// values with the prefix added: the array is read and written once. A status word holds the flag
// and the value in one 64-bit word, stored and loaded as one relaxed atomic access, so no reader
// can see a flag without its value and no fence is needed between them.
#pragma once

#include "lab.h"
#include "scan_kernels.cuh"
#include "scan_tile.cuh"
#include "sum_kernels.cuh"

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

namespace lab12 {
namespace {

// Warp 0 of a tile's block: publishes the tile's aggregate, finds the sum of every tile before it
// from their status words, publishes the tile's inclusive prefix, and returns the exclusive one
// (in lane 0: the core's warp_sum leaves its sums there).
// [look_back]
__device__ std::uint32_t look_back(const ScanTileState& state, unsigned int tile,
                                   std::uint32_t aggregate) {
  using Word = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
  const int lane = threadIdx.x % 32;
  Word mine(state.status[tile]);
  if (tile == 0) {
    if (lane == 0) mine.store(tile_status(kTileInclusive, aggregate), cuda::memory_order_relaxed);
    return 0;
  }
  if (lane == 0) mine.store(tile_status(kTileAggregate, aggregate), cuda::memory_order_relaxed);
  std::uint32_t exclusive = 0;
  long long nearest = static_cast<long long>(tile) - 1;  // the predecessor lane 0 reads
  while (true) {
    const long long predecessor = nearest - lane;
    // Before tile 0 there is nothing to add: an inclusive prefix of 0 ends the look-back there.
    unsigned long long word = tile_status(kTileInclusive, 0);
    if (predecessor >= 0) {
      Word theirs(state.status[predecessor]);
      do {
        word = theirs.load(cuda::memory_order_relaxed);
      } while ((word >> 32) == kTileInvalid);  // that tile has started: it publishes soon
    }
    const unsigned inclusive_lanes = __ballot_sync(kFullMask, (word >> 32) == kTileInclusive);
    // Add the aggregates of the lanes before the first inclusive one, and that one's prefix.
    const int stop = inclusive_lanes != 0 ? __ffs(inclusive_lanes) - 1 : 31;
    exclusive += warp_sum(lane <= stop ? static_cast<std::uint32_t>(word) : 0u);
    if (inclusive_lanes != 0) break;
    nearest -= 32;
  }
  if (lane == 0)
    mine.store(tile_status(kTileInclusive, exclusive + aggregate), cuda::memory_order_relaxed);
  return exclusive;
}
// [look_back]

template <int kVector>
__global__ void __launch_bounds__(kScanThreads)
    lookback_scan_kernel(const std::uint32_t* __restrict__ input,
                         std::uint32_t* __restrict__ output, std::size_t count,
                         ScanTileState state) {
  __shared__ unsigned int tile_number;
  __shared__ std::uint32_t tile_prefix;
  if (threadIdx.x == 0) tile_number = atomicAdd(state.next_tile, 1u);
  __syncthreads();
  const unsigned int tile = tile_number;
  const std::size_t tile_base = static_cast<std::size_t>(tile) * kScanTile;
  TileRegisters<kVector> tile_values;
  load_tile(input, count, tile_base, tile_values);
  std::uint32_t warp_offset = 0;
  const std::uint32_t aggregate = combine_warps(scan_warp_segment(tile_values), warp_offset);
  if (threadIdx.x < 32) {
    const std::uint32_t exclusive = look_back(state, tile, aggregate);
    if (threadIdx.x == 0) tile_prefix = exclusive;
  }
  __syncthreads();
  store_tile(output, count, tile_base, tile_values, tile_prefix + warp_offset);
}

}  // namespace
}  // namespace lab12
