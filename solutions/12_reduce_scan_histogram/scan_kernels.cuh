// Lab 12 solution: the inclusive scan, scan_block.
//
// A tile of 4096 values is scanned by one block of 256 threads in registers (the layout, and the
// loads and stores, are given: scan_tile.cuh). Warp w owns the tile's w-th segment of 512
// consecutive values; in each round a lane holds one chunk of kVector values. Per round: each lane
// scans its chunk, the warp scans the chunks' totals with 5 __shfl_up_sync steps, and the round's
// total carries into the next round (scan_warp_segment). Then the 8 warps' totals go through
// shared memory (one barrier) and each warp adds the totals of the warps before it
// (combine_warps). Those two are the block's scan, written once and used three times below (and a
// fourth by the look-back scan of the optional challenge).
//
// scan_block (three kernels): the tile kernel writes each tile's scan and its total; one block
// scans the totals with the same tile scan, a tile of totals at a time with the earlier tiles'
// sum carried, so that each total becomes its tile's inclusive prefix; a third kernel adds the
// previous tile's prefix to every value of its tile. The array is read twice and written twice.
#pragma once

#include "lab.h"
#include "scan_tile.cuh"
#include "sum_kernels.cuh"

#include <cstddef>
#include <cstdint>

namespace lab12 {
namespace {

// Inclusive scan of one value per lane.
__device__ __forceinline__ std::uint32_t warp_inclusive_scan(std::uint32_t value) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const std::uint32_t other = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += other;
  }
  return value;
}

// Scans the warp's segment in place (each value becomes its inclusive prefix within the segment);
// returns the segment's total. (Any values per thread: the look-back scan's tile has its own.)
// [warp_segment]
template <int kVector, int kItemsPerThread>
__device__ __forceinline__ std::uint32_t scan_warp_segment(
    TileRegisters<kVector, kItemsPerThread>& tile) {
  std::uint32_t carry = 0;
#pragma unroll
  for (int r = 0; r < TileRegisters<kVector, kItemsPerThread>::kRounds; ++r) {
#pragma unroll
    for (int k = 1; k < kVector; ++k) tile.items[r][k] += tile.items[r][k - 1];
    const std::uint32_t chunk_total = tile.items[r][kVector - 1];
    const std::uint32_t inclusive = warp_inclusive_scan(chunk_total);
    const std::uint32_t before = carry + (inclusive - chunk_total);  // chunks before this one
#pragma unroll
    for (int k = 0; k < kVector; ++k) tile.items[r][k] += before;
    carry += __shfl_sync(kFullMask, inclusive, 31);
  }
  return carry;
}
// [warp_segment]

// The tile's total; `warp_offset` gets the totals of the warps before this one. One barrier; a
// second call in the same kernel must follow a barrier (it reuses segment_totals). kWarps: the
// block's warps (the look-back scan's block has its own count).
// [combine_warps]
template <int kWarps = kScanWarps>
__device__ __forceinline__ std::uint32_t combine_warps(std::uint32_t segment_total,
                                                       std::uint32_t& warp_offset) {
  __shared__ std::uint32_t segment_totals[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) segment_totals[warp] = segment_total;
  __syncthreads();
  std::uint32_t before = 0, total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const std::uint32_t t = segment_totals[w];  // the same word for the whole warp: a broadcast
    before += w < warp ? t : 0u;
    total += t;
  }
  warp_offset = before;
  return total;
}
// [combine_warps]

template <int kVector>
__global__ void __launch_bounds__(kScanThreads)
    scan_tiles_kernel(const std::uint32_t* __restrict__ input, std::uint32_t* __restrict__ output,
                      std::size_t count, std::uint32_t* tile_totals) {
  const std::size_t tile_base = static_cast<std::size_t>(blockIdx.x) * kScanTile;
  TileRegisters<kVector> tile;
  load_tile(input, count, tile_base, tile);
  std::uint32_t warp_offset = 0;
  const std::uint32_t total = combine_warps(scan_warp_segment(tile), warp_offset);
  store_tile(output, count, tile_base, tile, warp_offset);
  if (threadIdx.x == 0) tile_totals[blockIdx.x] = total;
}

// One block: the tiles' totals become their inclusive prefixes, a tile of totals at a time with
// the earlier tiles' sum carried. The workspace is 16-byte aligned: 128-bit accesses.
// [scan_totals]
__global__ void __launch_bounds__(kScanThreads)
    scan_totals_kernel(std::uint32_t* totals, std::size_t tiles) {
  std::uint32_t carry = 0;
  for (std::size_t base = 0; base < tiles; base += kScanTile) {
    TileRegisters<4> tile;
    load_tile(totals, tiles, base, tile);
    std::uint32_t warp_offset = 0;
    const std::uint32_t total = combine_warps(scan_warp_segment(tile), warp_offset);
    store_tile(totals, tiles, base, tile, carry + warp_offset);
    carry += total;
    __syncthreads();  // combine_warps's shared totals are rewritten by the next round
  }
}
// [scan_totals]

// Adds the inclusive prefix of the tiles before this one (the previous tile's) to its values.
template <int kVector>
__global__ void __launch_bounds__(kScanThreads)
    add_offsets_kernel(std::uint32_t* __restrict__ output, std::size_t count,
                       const std::uint32_t* __restrict__ tile_prefixes) {
  if (blockIdx.x == 0) return;  // nothing before the first tile
  const std::size_t tile_base = static_cast<std::size_t>(blockIdx.x) * kScanTile;
  TileRegisters<kVector> tile;
  load_tile(output, count, tile_base, tile);
  store_tile(output, count, tile_base, tile, tile_prefixes[blockIdx.x - 1]);
}

}  // namespace
}  // namespace lab12
