// Lab 12 solution: the inclusive scan.
//
// A tile of 4096 values is scanned by one block of 256 threads in registers. Warp w owns the
// tile's w-th segment of 512 consecutive values; in round r (of 16 / kVector) its lane l holds the
// kVector values of chunk r * 32 + l of the segment, loaded with one 128-bit access (kVector = 4)
// so that each round of a warp reads 512 consecutive bytes. Per round: each lane scans its chunk,
// the warp scans the chunks' totals with 5 __shfl_up_sync steps, and the round's total carries into
// the next round. Then the 8 warps' totals go through shared memory (one barrier) and each warp
// adds the totals of the warps before it.
//
// scan_block (three kernels): the tile kernel writes each tile's scan and its total; one block of
// 1024 threads scans the totals into each tile's offset (exclusive); a third kernel adds the
// offset to every value of its tile. The array is read twice and written twice.
//
// scan_lookback (one pass, Merrill and Garland's decoupled look-back): a block takes the next tile
// number from a counter (so every tile before it has started), scans its tile, and publishes the
// tile's total (the aggregate) in its status word. Warp 0 then looks back: its 32 lanes read the
// status words of the 32 tiles before it, wait until each has published something, and add the
// aggregates up to the nearest tile that has published its inclusive prefix (the sum of everything
// up to and including that tile), whose prefix ends the look-back; with no such tile in the window
// the window moves 32 tiles back. The block publishes its own inclusive prefix, which shortens the
// look-back of the tiles after it, and writes its values with the prefix added: the array is read
// and written once. A status word holds the flag and the value in one 64-bit word, stored and
// loaded as one relaxed atomic access, so no reader can see a flag without its value and no fence
// is needed between them.
#pragma once

#include "lab.h"

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

namespace lab12 {
namespace {

constexpr unsigned kScanFullMask = 0xFFFFFFFFu;
constexpr int kScanWarps = kScanThreads / 32;
constexpr int kSegment = 32 * kScanItemsPerThread;  // values of one warp's segment

// Inclusive scan of one value per lane.
__device__ __forceinline__ std::uint32_t warp_inclusive_scan(std::uint32_t value) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const std::uint32_t other = __shfl_up_sync(kScanFullMask, value, offset);
    if (lane >= offset) value += other;
  }
  return value;
}

// The sum over the warp, in every lane.
__device__ __forceinline__ std::uint32_t warp_total(std::uint32_t value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(kScanFullMask, value, offset);
  return value;
}

template <int kVector>
struct TileRegisters {
  static constexpr int kRounds = kScanItemsPerThread / kVector;
  std::uint32_t items[kRounds][kVector];
};

// Index of the first value of this lane's chunk in round `round` of its warp's segment.
template <int kVector>
__device__ __forceinline__ std::size_t chunk_index(std::size_t tile_base, int round) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  return tile_base + static_cast<std::size_t>(warp) * kSegment +
         static_cast<std::size_t>(round * 32 + lane) * kVector;
}

template <int kVector>
__device__ __forceinline__ void load_tile(const std::uint32_t* __restrict__ input,
                                          std::size_t count, std::size_t tile_base,
                                          TileRegisters<kVector>& tile) {
#pragma unroll
  for (int r = 0; r < TileRegisters<kVector>::kRounds; ++r) {
    const std::size_t first = chunk_index<kVector>(tile_base, r);
    if constexpr (kVector == 4) {
      if (first + 4 <= count) {
        const uint4 v = *reinterpret_cast<const uint4*>(input + first);
        tile.items[r][0] = v.x;
        tile.items[r][1] = v.y;
        tile.items[r][2] = v.z;
        tile.items[r][3] = v.w;
        continue;
      }
    }
#pragma unroll
    for (int k = 0; k < kVector; ++k) tile.items[r][k] = first + k < count ? input[first + k] : 0u;
  }
}

template <int kVector>
__device__ __forceinline__ void store_tile(std::uint32_t* __restrict__ output, std::size_t count,
                                           std::size_t tile_base,
                                           const TileRegisters<kVector>& tile,
                                           std::uint32_t offset) {
#pragma unroll
  for (int r = 0; r < TileRegisters<kVector>::kRounds; ++r) {
    const std::size_t first = chunk_index<kVector>(tile_base, r);
    if constexpr (kVector == 4) {
      if (first + 4 <= count) {
        *reinterpret_cast<uint4*>(output + first) =
            make_uint4(tile.items[r][0] + offset, tile.items[r][1] + offset,
                       tile.items[r][2] + offset, tile.items[r][3] + offset);
        continue;
      }
    }
#pragma unroll
    for (int k = 0; k < kVector; ++k)
      if (first + k < count) output[first + k] = tile.items[r][k] + offset;
  }
}

// Scans the warp's segment in place (each value becomes its inclusive prefix within the segment);
// returns the segment's total.
// [warp_segment]
template <int kVector>
__device__ __forceinline__ std::uint32_t scan_warp_segment(TileRegisters<kVector>& tile) {
  std::uint32_t carry = 0;
#pragma unroll
  for (int r = 0; r < TileRegisters<kVector>::kRounds; ++r) {
#pragma unroll
    for (int k = 1; k < kVector; ++k) tile.items[r][k] += tile.items[r][k - 1];
    const std::uint32_t chunk_total = tile.items[r][kVector - 1];
    const std::uint32_t inclusive = warp_inclusive_scan(chunk_total);
    const std::uint32_t before = carry + (inclusive - chunk_total);  // chunks before this one
#pragma unroll
    for (int k = 0; k < kVector; ++k) tile.items[r][k] += before;
    carry += __shfl_sync(kScanFullMask, inclusive, 31);
  }
  return carry;
}
// [warp_segment]

// The tile's total; `warp_offset` gets the totals of the warps before this one. One barrier.
__device__ __forceinline__ std::uint32_t combine_warps(std::uint32_t segment_total,
                                                       std::uint32_t& warp_offset) {
  __shared__ std::uint32_t segment_totals[kScanWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) segment_totals[warp] = segment_total;
  __syncthreads();
  std::uint32_t before = 0, total = 0;
#pragma unroll
  for (int w = 0; w < kScanWarps; ++w) {
    const std::uint32_t t = segment_totals[w];  // the same word for the whole warp: a broadcast
    before += w < warp ? t : 0u;
    total += t;
  }
  warp_offset = before;
  return total;
}

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

// One block: the tiles' totals become their exclusive prefixes (each tile's offset), in rounds of
// kTotalsThreads * kTotalsItemsPerThread with the rounds' totals carried.
__global__ void __launch_bounds__(kTotalsThreads)
    scan_totals_kernel(std::uint32_t* totals, std::size_t tiles) {
  constexpr int kWarps = kTotalsThreads / 32;  // 32: one lane of warp 0 per warp
  constexpr int kRound = kTotalsThreads * kTotalsItemsPerThread;
  __shared__ std::uint32_t warp_prefix[kWarps];
  __shared__ std::uint32_t round_total;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  std::uint32_t carry = 0;
  for (std::size_t base = 0; base < tiles; base += kRound) {
    const std::size_t first = base + static_cast<std::size_t>(threadIdx.x) * kTotalsItemsPerThread;
    std::uint32_t items[kTotalsItemsPerThread];
    std::uint32_t thread_total = 0;
#pragma unroll
    for (int k = 0; k < kTotalsItemsPerThread; ++k) {
      items[k] = first + k < tiles ? totals[first + k] : 0u;
      thread_total += items[k];
    }
    const std::uint32_t inclusive = warp_inclusive_scan(thread_total);
    if (lane == 31) warp_prefix[warp] = inclusive;  // the warp's total, for now
    __syncthreads();
    if (warp == 0) {
      const std::uint32_t mine = warp_prefix[lane];
      const std::uint32_t scanned = warp_inclusive_scan(mine);
      warp_prefix[lane] = scanned - mine;  // the totals of the warps before lane's warp
      if (lane == 31) round_total = scanned;
    }
    __syncthreads();
    std::uint32_t running = carry + warp_prefix[warp] + (inclusive - thread_total);
#pragma unroll
    for (int k = 0; k < kTotalsItemsPerThread; ++k) {
      if (first + k < tiles) totals[first + k] = running;
      running += items[k];
    }
    carry += round_total;
    __syncthreads();  // warp_prefix and round_total are rewritten by the next round
  }
}

template <int kVector>
__global__ void __launch_bounds__(kScanThreads)
    add_offsets_kernel(std::uint32_t* __restrict__ output, std::size_t count,
                       const std::uint32_t* __restrict__ tile_offsets) {
  if (blockIdx.x == 0) return;  // the first tile's offset is 0
  const std::uint32_t offset = tile_offsets[blockIdx.x];
  const std::size_t tile_base = static_cast<std::size_t>(blockIdx.x) * kScanTile;
  constexpr int kChunks = kScanTile / kVector;
  for (int c = threadIdx.x; c < kChunks; c += kScanThreads) {
    const std::size_t first = tile_base + static_cast<std::size_t>(c) * kVector;
    if (kVector == 4 && first + 4 <= count) {
      uint4 v = *reinterpret_cast<uint4*>(output + first);
      v.x += offset;
      v.y += offset;
      v.z += offset;
      v.w += offset;
      *reinterpret_cast<uint4*>(output + first) = v;
    } else {
      for (int k = 0; k < kVector; ++k)
        if (first + k < count) output[first + k] += offset;
    }
  }
}

// Warp 0 of a tile's block: publishes the tile's aggregate, finds the sum of every tile before it
// from their status words, publishes the tile's inclusive prefix, and returns the exclusive one
// (in every lane).
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
    const unsigned inclusive_lanes = __ballot_sync(kScanFullMask, (word >> 32) == kTileInclusive);
    // Add the aggregates of the lanes before the first inclusive one, and that one's prefix.
    const int stop = inclusive_lanes != 0 ? __ffs(inclusive_lanes) - 1 : 31;
    exclusive += warp_total(lane <= stop ? static_cast<std::uint32_t>(word) : 0u);
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
