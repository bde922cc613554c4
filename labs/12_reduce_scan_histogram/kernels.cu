// Lab 12: reductions, scans and histograms. YOUR KERNELS GO HERE, one rung of each ladder per
// step; each is a variant of its own (`--variant sum_warp_shuffle`, ...), checked and timed alone
// against CUB and Thrust. Every kernel must be right for any count >= 1 and any alignment of the
// array (not only 16 bytes).
//
// Given: launch.cuh validates the arguments, picks the grids and clears what must start at zero;
// vectors.cuh splits an array of any alignment for 128-bit loads (split_for_vectors: the head
// before the first 16-byte boundary, the whole 16-byte vectors, the tail); scan_tile.cuh holds a
// scan tile in registers (TileRegisters, load_tile, store_tile: read its comment first).
//
// The core is steps 1 to 8. Write the device functions each step names with the signature it
// gives: later steps call them again, and so does the optional challenge (below the core's
// kernels, with its own points).
//
// ---- The sum (float; the error of every order of additions is bounded: lab.h, sum_error_bound)
// The launcher stores kSumStart (-0.0) in *sum before each of these kernels, which add to it.
//
// Step 1, `atomic_sum_kernel` (sum_atomic): one thread per element (grid ceil(count / 256)),
//  atomicAdd(sum, input[i]) when i < count.
//  Predict: how many atomics per second can one address take? (make profile N=12)
// Step 2, `shared_tree_sum_kernel` (sum_shared_tree): one element per thread into a shared array
//  of 256 (0 past the end), a barrier, then 8 levels: threads t < stride add partial[t + stride]
//  to partial[t], a barrier after each level. Thread 0 adds partial[0] to *sum with one atomicAdd.
// Step 3, `warp_shuffle_sum_kernel` (sum_warp_shuffle): the same sums with the first 5 levels
//  inside each warp. Write two device functions, then the kernel with one element per thread:
//  - template <class T> __device__ T warp_sum(T value): value += __shfl_down_sync(0xffffffff,
//    value, offset) for offset = 16, 8, 4, 2, 1 leaves the warp's sum in lane 0 (a template: the
//    challenge adds unsigned values with it).
//  - __device__ float block_sum(float value): the sum over the block of kThreadsPerBlock, in
//    thread 0: warp_sum, the 8 lanes 0 write their sums to a __shared__ array of 8, one
//    __syncthreads(), and warp 0 takes warp_sum of those 8 (0 in lanes 8 to 31). A second call in
//    the same kernel must come after a barrier (it reuses the shared array).
//  Thread 0 adds block_sum's result to *sum with one atomicAdd.
// Step 4, `multi_element_sum_kernel` (sum_multi_element): the grid now fills the GPU once
//  (launch.cuh), and each thread sums many elements before the block's sum:
//  - __device__ float thread_sum(const float* input, std::size_t count): this thread's share.
//    split_for_vectors(input, count) gives head, vectors and tail; loop over the float4s from
//    input + head with a grid stride (thread = global thread index, stride = all the grid's
//    threads), adding them into a float4 accumulator; load four float4s (v, v + stride, ...)
//    before adding any, so that more loads are in flight, and finish with a one-at-a-time loop.
//    Then add the accumulator's 4 lanes; thread i < head adds input[i], and thread i < tail adds
//    input[head + 4 * vectors + i].
//  The kernel: block_sum(thread_sum(input, count)), and thread 0's one atomicAdd.
//  Predict: which of steps 1 to 4 give the same bits on two runs of the same input? Which is
//  fastest, and why?
//
// ---- The inclusive scan (unsigned 32-bit, modulo 2^32) ----
// A tile is kScanTile = 4096 values, scanned by one block of kScanThreads = 256 in registers.
// scan_tile.cuh (given) says where each value sits: warp w owns the tile's segment of 512
// consecutive values, and in round r of TileRegisters<kVector>::kRounds its lane holds the
// kVector values tile.items[r][0 .. kVector - 1] (one 128-bit chunk when kVector = 4), the
// chunks of a round in lane order. load_tile and store_tile move a tile, 0 past count.
// Step 5, the tile's scan, as three device functions:
//  - __device__ std::uint32_t warp_inclusive_scan(std::uint32_t value): each lane gets the sum of
//    the values of lanes 0 .. itself: for offset = 1, 2, 4, 8, 16, add __shfl_up_sync(0xffffffff,
//    value, offset) when lane >= offset.
//  - template <int kVector> __device__ std::uint32_t scan_warp_segment(TileRegisters<kVector>&
//    tile): scans the warp's segment in place and returns the segment's total. Per round: scan the
//    lane's chunk in place (items[r][k] += items[r][k - 1]); the chunk's total goes through
//    warp_inclusive_scan; add the earlier rounds' carry plus the chunks before this lane's
//    (inclusive - chunk total) to each value; the round's total, lane 31's inclusive
//    (__shfl_sync(0xffffffff, inclusive, 31)), joins the carry.
//  - __device__ std::uint32_t combine_warps(std::uint32_t segment_total, std::uint32_t&
//    warp_offset): lane 0 of each warp writes its segment's total to a __shared__ array of
//    kScanWarps, one __syncthreads(); every thread sets warp_offset to the totals of the warps
//    before its own and returns the sum of all of them, the tile's total. A second call in the
//    same kernel must come after a barrier.
//  The tile's scan is then: load_tile; total = combine_warps(scan_warp_segment(tile),
//  warp_offset); store_tile with warp_offset (plus whatever comes before the tile).
// Step 6, scan_block, three kernels built on step 5 (the launcher runs them in turn):
//  1. `scan_tiles_kernel<kVector>`: block b scans tile b (base b * kScanTile) into output, and
//     thread 0 writes the tile's total to tile_totals[b].
//  2. `scan_totals_kernel` (one block of kScanThreads): the totals become inclusive prefixes
//     (totals[t] = totals[0] + ... + totals[t]). Loop over them a tile of kScanTile at a time,
//     with TileRegisters<4> (the workspace is 16-byte aligned): step 5's scan, stored with the
//     earlier tiles' sum added; carry the tile's total; a barrier before the next round.
//  3. `add_offsets_kernel<kVector>`: block b > 0 adds tile_prefixes[b - 1] to every value of its
//     tile (load_tile from output, store_tile back); block 0 has nothing to add.
//  Predict: how many bytes per element does scan_block move, and how few could a scan move?
//
// ---- The histogram (256 bins of bytes; the launcher clears the bins) ----
// Step 7, `global_histogram_kernel` (hist_global): one thread per byte,
//  atomicAdd(&bins[input[i]], 1u) when i < count.
// Step 8, `shared_histogram_kernel` (hist_shared): the block counts into its own __shared__ bins
//  (privatization), with three device functions the challenge calls again:
//  - __device__ void clear_bins(std::uint32_t* block_bins): the block's threads zero the kBins
//    bins (a barrier follows, in the kernel).
//  - __device__ void count_head_and_tail(const std::uint8_t* input, const VectorSplit& split,
//    std::size_t thread, std::uint32_t* block_bins): thread i < head counts input[i], thread
//    i < tail counts input[head + 16 * vectors + i], with a shared atomicAdd each.
//  - __device__ void merge_bins(const std::uint32_t* block_bins, std::uint32_t* bins): after a
//    barrier, the block's threads add each nonzero shared bin to its global bin (one atomicAdd).
//  The kernel: clear_bins, a barrier; a grid-stride loop over the uint4 vectors of
//  split_for_vectors(input, count), counting each of a vector's 16 bytes with a shared atomicAdd;
//  count_head_and_tail; a barrier; merge_bins.
//  Predict: on uniform and on skewed bytes, which of steps 7 and 8 wins, and by how much?
#include "lab.h"
#include "scan_tile.cuh"
#include "vectors.cuh"

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

namespace lab12 {
namespace {

// ---- The core: steps 1 to 8 ----

__global__ void atomic_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  // TODO(lab12): step 1, one atomicAdd per element.
  (void)input;
  (void)count;
  (void)sum;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    shared_tree_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  // TODO(lab12): step 2, a tree in shared memory, one atomicAdd per block.
  (void)input;
  (void)count;
  (void)sum;
}

// TODO(lab12): step 3, warp_sum and block_sum here (step 4 and the challenge call them too).

__global__ void __launch_bounds__(kThreadsPerBlock)
    warp_shuffle_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  // TODO(lab12): step 3, block_sum of one element per thread, one atomicAdd per block.
  (void)input;
  (void)count;
  (void)sum;
}

// TODO(lab12): step 4, thread_sum here (the challenge calls it too).

__global__ void __launch_bounds__(kThreadsPerBlock)
    multi_element_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  // TODO(lab12): step 4, block_sum(thread_sum(...)), one atomicAdd per block.
  (void)input;
  (void)count;
  (void)sum;
}

// TODO(lab12): step 5, warp_inclusive_scan, scan_warp_segment and combine_warps here (step 6
// and the challenge call them).

template <int kVector>
__global__ void __launch_bounds__(kScanThreads)
    scan_tiles_kernel(const std::uint32_t* __restrict__ input, std::uint32_t* __restrict__ output,
                      std::size_t count, std::uint32_t* tile_totals) {
  // TODO(lab12): step 6.1, scan each tile, write its total.
  (void)input;
  (void)output;
  (void)count;
  (void)tile_totals;
}

__global__ void __launch_bounds__(kScanThreads)
    scan_totals_kernel(std::uint32_t* totals, std::size_t tiles) {
  // TODO(lab12): step 6.2, the tiles' totals into their inclusive prefixes.
  (void)totals;
  (void)tiles;
}

template <int kVector>
__global__ void __launch_bounds__(kScanThreads)
    add_offsets_kernel(std::uint32_t* __restrict__ output, std::size_t count,
                       const std::uint32_t* __restrict__ tile_prefixes) {
  // TODO(lab12): step 6.3, add the previous tile's prefix to each tile.
  (void)output;
  (void)count;
  (void)tile_prefixes;
}

__global__ void global_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                                        std::uint32_t* bins) {
  // TODO(lab12): step 7, one global atomicAdd per byte.
  (void)input;
  (void)count;
  (void)bins;
}

// TODO(lab12): step 8, clear_bins, count_head_and_tail and merge_bins here.

__global__ void __launch_bounds__(kThreadsPerBlock)
    shared_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                            std::uint32_t* bins) {
  // TODO(lab12): step 8, privatized bins in shared memory.
  (void)input;
  (void)count;
  (void)bins;
}

// ---- The optional challenge: sum_one_pass, scan_lookback, hist_warp_aggregated ----
// Its own tests and points; each kernel calls the core's device functions above.
//
// Challenge A, `one_pass_sum_kernel` (sum_one_pass): step 4 without float atomics, so that the
//  same input gives the same bits every run. block_sum(thread_sum(input, count)); thread 0 writes
//  the block's sum to partials[blockIdx.x], __threadfence(), then takes a ticket with
//  atomicAdd(ticket, 1u) (the launcher clears it). The block whose ticket is gridDim.x - 1 is the
//  last: tell the block through a __shared__ flag and a __syncthreads(); the other blocks return.
//  The last block: __threadfence(), its threads add the partials b = threadIdx.x, + blockDim.x,
//  ... (read them with __ldcg, from L2), block_sum of those, and thread 0 writes *sum.
//
// Challenge B, `lookback_scan_kernel<kVector>` (scan_lookback): the scan in one pass (Merrill and
//  Garland's decoupled look-back): each tile is read and written once. Its tile has a shape of
//  its own: kLookbackThreads = 128 threads of kLookbackItemsPerThread = 32 values
//  (TileRegisters<kVector, kLookbackItemsPerThread>; load_tile and store_tile take any), so step
//  5's scan_warp_segment and combine_warps must take any values per thread and any warps (template
//  parameters) for the challenge to call them.
//  1. Thread 0 takes the tile number: atomicAdd(state.next_tile, 1u) (the launcher cleared it), so
//     that every earlier tile's block has started; share it through shared memory (a barrier).
//  2. Step 5's scan of the tile: its total is the tile's aggregate.
//  3. Warp 0 looks back (write it as a device function of the warp): lane 0 publishes
//     tile_status(kTileAggregate, aggregate) in state.status[tile] (tile 0: kTileInclusive, and
//     its exclusive prefix is 0) with one 64-bit relaxed store: cuda::atomic_ref<unsigned long
//     long, cuda::thread_scope_device>(word).store(value, cuda::memory_order_relaxed). Then lane l
//     reads the status word of tile - 1 - l (relaxed loads) until it is no longer kTileInvalid;
//     a lane before tile 0 takes tile_status(kTileInclusive, 0). __ballot_sync finds the lanes
//     that saw kTileInclusive; add the values (the low 32 bits) of the lanes up to the first of
//     them with warp_sum<std::uint32_t>. If none did, add all 32 and move the window 32 tiles back.
//     Lane 0 publishes tile_status(kTileInclusive, exclusive + aggregate). Measure it against
//     CUB: a look-back that polls at once finds its predecessors still looking back themselves
//     and walks far back, its polls competing with the loads in L2; __nanosleep before the
//     first poll and between polls is what brings it to CUB's speed.
//  4. Share the exclusive prefix through shared memory (a barrier); store_tile with it plus
//     warp_offset.
//
// Challenge C, `warp_aggregated_histogram_kernel` (hist_warp_aggregated): step 8's kernel, and
//  before each shared atomic the lanes of a warp holding the same byte find each other:
//  peers = __match_any_sync(0xffffffff, value); the lowest lane of peers adds __popc(peers).
//  All 32 lanes must call __match_any_sync together: make the loop's trip count the same in every
//  lane of a warp (loop from the warp's first vector) and let the lanes past the end match as a
//  value no byte has (kBins).

__global__ void __launch_bounds__(kThreadsPerBlock)
    one_pass_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum,
                        float* partials, unsigned int* ticket) {
  // TODO(lab12): challenge A, the blocks' partials summed by the last block to finish.
  (void)input;
  (void)count;
  (void)sum;
  (void)partials;
  (void)ticket;
}

template <int kVector>
__global__ void __launch_bounds__(kLookbackThreads)
    lookback_scan_kernel(const std::uint32_t* __restrict__ input,
                         std::uint32_t* __restrict__ output, std::size_t count,
                         ScanTileState state) {
  // TODO(lab12): challenge B, the single-pass scan with decoupled look-back.
  (void)input;
  (void)output;
  (void)count;
  (void)state;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    warp_aggregated_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                                     std::uint32_t* bins) {
  // TODO(lab12): challenge C, one shared atomic per distinct value per warp.
  (void)input;
  (void)count;
  (void)bins;
}

}  // namespace
}  // namespace lab12

#include "launch.cuh"
