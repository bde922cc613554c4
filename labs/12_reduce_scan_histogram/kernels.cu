// Lab 12: reductions, scans and histograms. YOUR KERNELS GO HERE, one rung of each ladder per
// step; each is a variant of its own (`--variant sum_warp_shuffle`, ...), checked and timed alone
// against CUB and Thrust. launch.cuh (given) validates the arguments, picks the grids and clears
// what must start at zero; vectors.cuh splits an array of any alignment for 128-bit loads. Every
// kernel must be right for any count >= 1 and any alignment of the array (not only 16 bytes).
//
// ---- The sum (float, the error of every order of additions is bounded: lab.h, sum_error_bound)
// ---- The launcher stores kSumStart (-0.0) in *sum before the kernels of steps 1 to 4, which add
// to it.
//
// Step 1, `atomic_sum_kernel`: one thread per element (grid ceil(count / 256)), atomicAdd(sum,
//  input[i]) when i < count.
//  Predict: how many atomics per second can one address take? (make profile N=12)
// Step 2, `shared_tree_sum_kernel`: one element per thread into a shared array of 256 (0 past the
//  end), a barrier, then 8 levels: threads t < stride add partial[t + stride] to partial[t], a
//  barrier after each level. Thread 0 adds partial[0] to *sum with one atomicAdd.
// Step 3, `warp_shuffle_sum_kernel`: the same sums with the first 5 levels inside each warp:
//  value += __shfl_down_sync(0xffffffff, value, offset) for offset = 16, 8, 4, 2, 1 leaves the
//  warp's sum in lane 0; the 8 lanes 0 write their sums to shared memory, one barrier, and warp 0
//  sums those 8 the same way. Write it as a device function: steps 4 and 5 use it too.
// Step 4, `multi_element_sum_kernel`: the grid now fills the GPU once (launch.cuh); each thread
//  loops over the array with a grid stride, 16 bytes at a time: split_for_vectors(input, count)
//  gives the head (elements before the first 16-byte boundary), the whole float4s after it, and the
//  tail. Add the float4s into a float4 accumulator (load several before adding, so that more loads
//  are in flight), then its 4 lanes; thread i < head adds input[i], thread i < tail adds
//  input[head + 4 * vectors + i]. Then step 3's block sum and one atomicAdd per block.
// Step 5, `one_pass_sum_kernel`: step 4 without float atomics. Thread 0 of each block writes its
//  block's sum to partials[blockIdx.x], __threadfence(), then takes a ticket with
//  atomicAdd(ticket, 1) (launch.cuh clears it). The block whose ticket is gridDim.x - 1 is the
//  last: after a __syncthreads() and a __threadfence() its threads sum the partials (read them with
//  __ldcg) in block order and thread 0 writes *sum. The same input gives the same bits every run.
//  Predict: which of steps 1 to 5 reach the same bits twice? Which is fastest, and why?
//
// ---- The inclusive scan (unsigned 32-bit, modulo 2^32) ----
// A tile is kScanTile = 4096 values, scanned by one block of 256 threads. Warp w owns values
// 512 w .. 512 w + 511 of the tile; in round r its lane l holds the kVector values starting at
// 512 w + (32 r + l) * kVector (kVector = 4: one uint4 load when the arrays are 16-byte aligned;
// kVector = 1 otherwise): each round of a warp reads consecutive memory.
// Step 6, `scan_tiles_kernel<kVector>`, `scan_totals_kernel`, `add_offsets_kernel<kVector>`
//  (scan_block):
//  1. scan_tiles_kernel: load the tile (0 past count). Per round: each lane scans its kVector
//     values, the warp scans the lanes' totals with __shfl_up_sync (offsets 1, 2, 4, 8, 16), and
//     the round's total (lane 31's) carries into the next round. Then the 8 warps' totals through
//     shared memory (one barrier), each warp adds those before it. Store the values inside count;
//     thread 0 writes the tile's total to tile_totals[blockIdx.x].
//  2. scan_totals_kernel (one block of kTotalsThreads): replace each tile total by the sum of the
//     totals before it (an exclusive scan), in rounds of kTotalsThreads * kTotalsItemsPerThread.
//  3. add_offsets_kernel: add tile_totals[blockIdx.x] to every value of the tile.
// Step 7, `lookback_scan_kernel<kVector>` (scan_lookback): one pass.
//  4. Thread 0 takes the tile number: atomicAdd(state.next_tile, 1) (launch.cuh cleared it), so
//     every earlier tile's block has started. Scan the tile as in 1 (the tile's total is its
//     aggregate).
//  5. Warp 0 publishes tile_status(kTileAggregate, aggregate) in state.status[tile] (tile 0:
//     kTileInclusive) with one 64-bit relaxed store: cuda::atomic_ref<unsigned long long,
//     cuda::thread_scope_device>(word).store(value, cuda::memory_order_relaxed).
//  6. Look back: lane l reads the status word of tile (tile - 1 - l) until it is no longer
//     kTileInvalid. With __ballot_sync find the nearest lane that saw kTileInclusive; add the
//     values of the lanes before it and its own (a warp sum). If none did, add all 32 aggregates
//     and move the window 32 tiles back. Publish kTileInclusive with exclusive + aggregate.
//  7. Share the exclusive prefix through shared memory (a barrier), add it, store the tile.
//  Predict: the bytes each variant moves, and the ratio of their times.
//
// ---- The histogram (256 bins of bytes; launch.cuh clears the bins) ----
// Step 8, `global_histogram_kernel`: one thread per byte: atomicAdd(&bins[input[i]], 1u).
// Step 9, `shared_histogram_kernel`: __shared__ bins of the block, zeroed, a barrier; grid-stride
//  over the uint4 vectors of split_for_vectors (16 bytes each, count each byte with a shared
//  atomicAdd), the head and tail bytes as in step 4; a barrier; add each nonzero shared bin to the
//  global bin with one atomicAdd.
// Step 10, `warp_aggregated_histogram_kernel`: step 9, and before each shared atomic the lanes
//  find their peers: peers = __match_any_sync(mask, value); the lowest lane of peers adds
//  __popc(peers). All 32 lanes must call __match_any_sync together: make the loop's trip count
//  the same in every lane of a warp and let the lanes past the end match as a value no byte has.
//  Predict: on uniform and on skewed bytes, which of steps 8 to 10 wins, and by how much?
#include "lab.h"
#include "vectors.cuh"

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

namespace lab12 {
namespace {

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

__global__ void __launch_bounds__(kThreadsPerBlock)
    warp_shuffle_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  // TODO(lab12): step 3, warp shuffles, one atomicAdd per block.
  (void)input;
  (void)count;
  (void)sum;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    multi_element_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {
  // TODO(lab12): step 4, grid-stride float4 loads, then the block's shuffles.
  (void)input;
  (void)count;
  (void)sum;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    one_pass_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum,
                        float* partials, unsigned int* ticket) {
  // TODO(lab12): step 5, the blocks' partials summed by the last block to finish.
  (void)input;
  (void)count;
  (void)sum;
  (void)partials;
  (void)ticket;
}

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

__global__ void __launch_bounds__(kTotalsThreads)
    scan_totals_kernel(std::uint32_t* totals, std::size_t tiles) {
  // TODO(lab12): step 6.2, the tiles' totals into their exclusive prefixes.
  (void)totals;
  (void)tiles;
}

template <int kVector>
__global__ void __launch_bounds__(kScanThreads)
    add_offsets_kernel(std::uint32_t* __restrict__ output, std::size_t count,
                       const std::uint32_t* __restrict__ tile_offsets) {
  // TODO(lab12): step 6.3, add each tile's offset.
  (void)output;
  (void)count;
  (void)tile_offsets;
}

template <int kVector>
__global__ void __launch_bounds__(kScanThreads)
    lookback_scan_kernel(const std::uint32_t* __restrict__ input,
                         std::uint32_t* __restrict__ output, std::size_t count,
                         ScanTileState state) {
  // TODO(lab12): step 7, the single-pass scan with decoupled look-back.
  (void)input;
  (void)output;
  (void)count;
  (void)state;
}

__global__ void global_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                                        std::uint32_t* bins) {
  // TODO(lab12): step 8, one global atomicAdd per byte.
  (void)input;
  (void)count;
  (void)bins;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    shared_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                            std::uint32_t* bins) {
  // TODO(lab12): step 9, privatized bins in shared memory.
  (void)input;
  (void)count;
  (void)bins;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    warp_aggregated_histogram_kernel(const std::uint8_t* __restrict__ input, std::size_t count,
                                     std::uint32_t* bins) {
  // TODO(lab12): step 10, one shared atomic per distinct value per warp.
  (void)input;
  (void)count;
  (void)bins;
}

}  // namespace
}  // namespace lab12

#include "launch.cuh"
