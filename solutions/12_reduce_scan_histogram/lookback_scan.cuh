// Lab 12 solution, optional challenge B: scan_lookback, one pass (Merrill and Garland's decoupled
// look-back).
//
// A block takes the next tile number from a counter (so every tile before it has started), loads
// its tile (scan_tile.cuh's layout: warp w holds the w-th segment, 128-bit loads where both arrays
// are 16-byte aligned) and publishes the tile's total (the aggregate) in its status word. Warp 0
// then looks back: its 32 lanes read the status words of the 32 tiles before it, wait until each
// has published something, and add the aggregates up to the nearest tile that has published its
// inclusive prefix (the sum of everything up to and including that tile), whose prefix ends the
// look-back; with no such tile in the window the window moves 32 tiles back. The block publishes
// its own inclusive prefix, which shortens the look-back of the tiles after it, and writes its
// values with the prefix added: the array is read and written once. A status word holds the flag
// and the value in one 64-bit word, stored and loaded as one relaxed atomic access, so no reader
// can see a flag without its value and no fence is needed between them.
//
// What makes it fast, measured by lab12_scan_sweep (scan_sweep_main.cu beside this file) on an
// H200 against CUB's DeviceScan (docs/data/results/lab12_scan_sweep_nvidia-h200.txt, and
// docs/data/history/lab12_scan_sweep_v1-shapes-sleeps_nvidia-h200.txt):
// - a sleep (__nanosleep) after publishing the aggregate, before the first poll: polled at once,
//   the predecessors are mostly still looking back themselves (aggregates, no inclusive prefix
//   yet), so the look-back walks window after window back, each 32 more trips to L2 that compete
//   with the loads and stores; after ~1.2 us most have their prefix and one window ends it. This
//   alone took 256x16 from 0.79x CUB to 0.92x, 128x24 from 0.82x to 1.00x at 2^28;
// - a tile of 128 threads x 32 values (4096, 70 registers, 7 blocks per SM): with the sleeps,
//   1.04x CUB at 2^28 (3,208 GB/s against 3,083), the fastest shape measured; larger blocks
//   (256, 512 threads) are slower at every size;
// - waiting in the first window for an inclusive prefix instead of walking back was 2x to 4x
//   slower (the chain of prefixes moves one tile per L2 round trip), and tile numbers from
//   blockIdx.x instead of the counter gained under 3 % (and lose the order that guarantees
//   progress); neither is kept.
// The aggregate comes from a plain sum before the tile's scan (warp 0 looks back while the other
// warps scan their segments); with the sleeps this measured the same as publishing it after the
// scan. The knobs that measured are in LookbackTuning; kLookbackTuning is what scan_lookback runs.
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

// The look-back scan's knobs: one configuration is one kernel (a template argument).
struct LookbackTuning {
  int threads = kLookbackThreads;                  // threads per block
  int items_per_thread = kLookbackItemsPerThread;  // the tile is threads * items_per_thread
  int min_blocks_per_sm = 1;                       // __launch_bounds__: registers for occupancy
  int first_poll_delay_ns = 1245;                  // sleep after the aggregate, before a poll
  int poll_delay_ns = 648;                         // sleep between polls that find no prefix
};

// What scan_lookback runs: the fastest of lab12_scan_sweep's candidates on an H200. (CUB's own
// choice for 4-byte sums on Hopper is 128 threads x 24 values with the same two sleeps.)
inline constexpr LookbackTuning kLookbackTuning{};

// Warp 0 of a tile's block: publishes the tile's aggregate, finds the sum of every tile before it
// from their status words, publishes the tile's inclusive prefix, and returns the exclusive one
// (in lane 0: the core's warp_sum leaves its sums there).
// [look_back]
template <int kFirstPollDelayNs, int kPollDelayNs>
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
  // The predecessors started before this tile and publish at about the same time: a first poll
  // at once mostly finds them silent, and every poll is a trip to L2 that the loads also need.
  if constexpr (kFirstPollDelayNs > 0) __nanosleep(kFirstPollDelayNs);
  std::uint32_t exclusive = 0;
  long long nearest = static_cast<long long>(tile) - 1;  // the predecessor lane 0 reads
  while (true) {
    const long long predecessor = nearest - lane;
    // Before tile 0 there is nothing to add: an inclusive prefix of 0 ends the look-back there.
    unsigned long long word = tile_status(kTileInclusive, 0);
    if (predecessor >= 0) {
      Word theirs(state.status[predecessor]);
      word = theirs.load(cuda::memory_order_relaxed);
      while ((word >> 32) == kTileInvalid) {  // that tile has started: it publishes soon
        if constexpr (kPollDelayNs > 0) __nanosleep(kPollDelayNs);
        word = theirs.load(cuda::memory_order_relaxed);
      }
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

// The sum of a thread's values (modulo 2^32).
template <int kVector, int kItemsPerThread>
__device__ __forceinline__ std::uint32_t thread_total(
    const TileRegisters<kVector, kItemsPerThread>& tile) {
  std::uint32_t total = 0;
#pragma unroll
  for (int r = 0; r < TileRegisters<kVector, kItemsPerThread>::kRounds; ++r)
#pragma unroll
    for (int k = 0; k < kVector; ++k) total += tile.items[r][k];
  return total;
}

// One block's tile, scanned and stored with its prefix: the kernels below are this body with
// their own launch bounds.
// [lookback_tile]
template <LookbackTuning kTuning, int kVector>
__device__ __forceinline__ void lookback_scan_tile(const std::uint32_t* __restrict__ input,
                                                   std::uint32_t* __restrict__ output,
                                                   std::size_t count, ScanTileState state) {
  constexpr int kWarps = kTuning.threads / 32;
  constexpr std::size_t kTile =
      static_cast<std::size_t>(kTuning.threads) * kTuning.items_per_thread;
  __shared__ unsigned int tile_number;
  __shared__ std::uint32_t tile_prefix;
  if (threadIdx.x == 0) tile_number = atomicAdd(state.next_tile, 1u);
  __syncthreads();
  const unsigned int tile = tile_number;
  const std::size_t tile_base = static_cast<std::size_t>(tile) * kTile;
  TileRegisters<kVector, kTuning.items_per_thread> tile_values;
  load_tile(input, count, tile_base, tile_values);
  // The tile's total from a plain sum: the look-back starts before the scan, which the other warps
  // do while warp 0 waits on its predecessors.
  std::uint32_t warp_offset = 0;
  const std::uint32_t aggregate =
      combine_warps<kWarps>(warp_sum(thread_total(tile_values)), warp_offset);
  if (threadIdx.x < 32) {
    const std::uint32_t exclusive =
        look_back<kTuning.first_poll_delay_ns, kTuning.poll_delay_ns>(state, tile, aggregate);
    if (threadIdx.x == 0) tile_prefix = exclusive;
  }
  scan_warp_segment(tile_values);
  __syncthreads();
  store_tile(output, count, tile_base, tile_values, tile_prefix + warp_offset);
}
// [lookback_tile]

// scan_lookback's kernel (launch.cuh launches it with kLookbackThreads per block, one block per
// kLookbackTile values).
template <int kVector>
__global__ void __launch_bounds__(kLookbackThreads, kLookbackTuning.min_blocks_per_sm)
    lookback_scan_kernel(const std::uint32_t* __restrict__ input,
                         std::uint32_t* __restrict__ output, std::size_t count,
                         ScanTileState state) {
  static_assert(kLookbackTuning.threads == kLookbackThreads &&
                    kLookbackTuning.items_per_thread == kLookbackItemsPerThread,
                "lab.h's look-back tile is the tuning's");
  lookback_scan_tile<kLookbackTuning, kVector>(input, output, count, state);
}

// Any configuration, for lab12_scan_sweep. (A kernel's template arguments are plain numbers:
// nvcc's host stubs cannot spell a struct as one.)
template <int kThreads, int kItemsPerThread, int kMinBlocksPerSm, int kFirstPollDelayNs,
          int kPollDelayNs, int kVector>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    lookback_scan_candidate_kernel(const std::uint32_t* __restrict__ input,
                                   std::uint32_t* __restrict__ output, std::size_t count,
                                   ScanTileState state) {
  constexpr LookbackTuning kTuning{kThreads, kItemsPerThread, kMinBlocksPerSm, kFirstPollDelayNs,
                                   kPollDelayNs};
  lookback_scan_tile<kTuning, kVector>(input, output, count, state);
}

// The candidate kernel of configuration kTuning.
template <LookbackTuning kTuning, int kVector>
constexpr auto lookback_candidate =
    &lookback_scan_candidate_kernel<kTuning.threads, kTuning.items_per_thread,
                                    kTuning.min_blocks_per_sm, kTuning.first_poll_delay_ns,
                                    kTuning.poll_delay_ns, kVector>;

}  // namespace
}  // namespace lab12
