// Lab 12 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining the kernels): argument checks, grids, workspaces, and the variant lists. Given
// code: nothing here is a TODO. Each list holds the core's rungs first, then the optional
// challenge's (sum_one_pass, scan_lookback, hist_warp_aggregated).
//
// Grids: the one-element-per-thread rungs (sum_atomic, sum_shared_tree, sum_warp_shuffle,
// hist_global) launch ceil(count / 256) blocks. The grid-stride rungs (sum_multi_element,
// sum_one_pass, hist_shared, hist_warp_aggregated) launch as many blocks as fit on the GPU at once
// (the occupancy calculator's blocks per SM times the SMs), fewer when there is little to do: one
// wave, every block looping over the array. The scans launch one block per tile (kScanTile;
// scan_lookback's kLookbackTile), but for scan_block's second kernel: one block of kScanThreads
// for all the tiles' totals.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

// Stores kSumStart in the output of a sum that finishes with atomics (given, not the lesson).
// Outside namespace lab12, so that a profile of the lab's kernels (scripts/profile: lab12::) skips
// it.
namespace lab12_given {
namespace {
__global__ void store_sum_start_kernel(float* sum) {
  *sum = lab12::kSumStart;
}
}  // namespace
}  // namespace lab12_given

namespace lab12 {
namespace {

using cudalabs::ceil_div;
using cudalabs::KernelLaunch;
using lab12_given::store_sum_start_kernel;

// Blocks of kThreadsPerBlock threads of `kernel` that are resident on the whole GPU at once.
long long resident_blocks(const void* kernel) {
  static std::map<const void*, long long> known;
  const auto found = known.find(kernel);
  if (found != known.end()) return found->second;
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreadsPerBlock, 0));
  const long long blocks =
      static_cast<long long>(std::max(per_sm, 1)) * cudalabs::multiprocessor_count();
  known.emplace(kernel, blocks);
  return blocks;
}

// One wave of a grid-stride kernel that reads `per_thread_step` elements per thread and step: at
// most the resident blocks (and kMaxSumBlocks), at least one.
dim3 grid_stride_grid(const void* kernel, std::size_t count, std::size_t per_thread_step,
                      const char* who) {
  const long long wanted =
      static_cast<long long>(ceil_div<std::size_t>(count, per_thread_step * kThreadsPerBlock));
  const long long blocks =
      std::clamp<long long>(std::min(wanted, resident_blocks(kernel)), 1, kMaxSumBlocks);
  return cudalabs::checked_grid(blocks, 1, 1, who);
}

void require_pointer(const void* pointer, const char* name, const std::string& who) {
  if (pointer == nullptr) throw std::invalid_argument(who + ": pointer " + name + " is null");
}

void require_alignment(const void* pointer, std::size_t bytes, const char* name,
                       const std::string& who) {
  if (reinterpret_cast<std::uintptr_t>(pointer) % bytes != 0) {
    throw std::invalid_argument(who + ": pointer " + name + " is not " + std::to_string(bytes) +
                                "-byte aligned (an array of its element type must be)");
  }
}

void require_count(std::size_t count, const std::string& who) {
  if (count == 0) throw std::invalid_argument(who + ": count = 0 must be >= 1");
}

void require_workspace(const void* workspace, std::size_t have, std::size_t need,
                       const std::string& who) {
  if (need == 0) return;
  if (workspace == nullptr || have < need) {
    throw std::invalid_argument(who + ": workspace of " + std::to_string(workspace ? have : 0) +
                                " bytes, needs " + std::to_string(need) +
                                " (the variant's workspace_bytes)");
  }
  require_alignment(workspace, 16, "workspace", who);
}

// ---- Sum ----

void validate_sum(const SumArgs& args, std::size_t workspace_needed, const std::string& who) {
  require_pointer(args.input, "input", who);
  require_pointer(args.sum, "sum", who);
  require_alignment(args.input, alignof(float), "input", who);
  require_alignment(args.sum, alignof(float), "sum", who);
  require_count(args.count, who);
  require_workspace(args.workspace, args.workspace_bytes, workspace_needed, who);
}

std::size_t no_workspace(std::size_t) {
  return 0;
}

// The depth of a block's reduction: 8 levels of the shared-memory tree (256 threads), or 5 levels
// of shuffles in each warp and 5 more over the warps' sums.
constexpr std::int64_t kTreeLevels = 8;
constexpr std::int64_t kShuffleLevels = 10;
// A grid-stride thread's own levels besides its vectors: the vector's four lanes (2) and the one
// element before the first vector and the one after the last (2).
constexpr std::int64_t kThreadExtraLevels = 4;

std::int64_t element_blocks(std::size_t count) {
  return static_cast<std::int64_t>(ceil_div<std::size_t>(count, kThreadsPerBlock));
}

// One element per thread, then a block's tree, then one atomicAdd per block on the output.
template <auto kKernel>
KernelLaunch describe_one_per_thread(std::size_t count) {
  return {reinterpret_cast<const void*>(kKernel),
          cudalabs::checked_grid(element_blocks(count), 1, 1, "lab12 sum"), dim3(kThreadsPerBlock),
          0};
}

template <auto kKernel>
void launch_one_per_thread(const SumArgs& args, cudaStream_t stream, const char* who) {
  validate_sum(args, 0, who);
  const KernelLaunch config = describe_one_per_thread<kKernel>(args.count);
  store_sum_start_kernel<<<1, 1, 0, stream>>>(args.sum);
  CUDA_CHECK_LAUNCH("lab12 store_sum_start_kernel");
  kKernel<<<config.grid, config.block, 0, stream>>>(args.input, args.count, args.sum);
  CUDA_CHECK_LAUNCH(who);
}

void launch_atomic(const SumArgs& args, cudaStream_t stream) {
  launch_one_per_thread<&atomic_sum_kernel>(args, stream, "lab12 sum_atomic");
}
// Every element is added to the one running sum: a chain as long as the array.
std::int64_t depth_atomic(std::size_t count) {
  return static_cast<std::int64_t>(count);
}

void launch_shared_tree(const SumArgs& args, cudaStream_t stream) {
  launch_one_per_thread<&shared_tree_sum_kernel>(args, stream, "lab12 sum_shared_tree");
}
std::int64_t depth_shared_tree(std::size_t count) {
  return kTreeLevels + element_blocks(count);
}

void launch_warp_shuffle(const SumArgs& args, cudaStream_t stream) {
  launch_one_per_thread<&warp_shuffle_sum_kernel>(args, stream, "lab12 sum_warp_shuffle");
}
std::int64_t depth_warp_shuffle(std::size_t count) {
  return kShuffleLevels + element_blocks(count);
}

// Grid-stride: each thread reads float4s (4 elements per step).
template <auto kKernel>
KernelLaunch describe_grid_stride_sum(std::size_t count) {
  const void* kernel = reinterpret_cast<const void*>(kKernel);
  return {kernel, grid_stride_grid(kernel, count, 4, "lab12 sum"), dim3(kThreadsPerBlock), 0};
}

// A grid-stride thread's vectors: at most ceil(count / (4 * threads)) of them.
std::int64_t per_thread_depth(std::size_t count, const KernelLaunch& config) {
  const std::size_t threads = static_cast<std::size_t>(config.grid.x) * kThreadsPerBlock;
  return static_cast<std::int64_t>(ceil_div<std::size_t>(count, 4 * threads)) + kThreadExtraLevels;
}

void launch_multi_element(const SumArgs& args, cudaStream_t stream) {
  const char* who = "lab12 sum_multi_element";
  validate_sum(args, 0, who);
  const KernelLaunch config = describe_grid_stride_sum<&multi_element_sum_kernel>(args.count);
  store_sum_start_kernel<<<1, 1, 0, stream>>>(args.sum);
  CUDA_CHECK_LAUNCH("lab12 store_sum_start_kernel");
  multi_element_sum_kernel<<<config.grid, config.block, 0, stream>>>(args.input, args.count,
                                                                     args.sum);
  CUDA_CHECK_LAUNCH(who);
}
std::int64_t depth_multi_element(std::size_t count) {
  const KernelLaunch config = describe_grid_stride_sum<&multi_element_sum_kernel>(count);
  return per_thread_depth(count, config) + kShuffleLevels + config.grid.x;
}

// The one-pass sum's workspace: the ticket (16 bytes, keeping the partials 16-byte aligned), then
// one partial sum per block.
constexpr std::size_t kTicketBytes = 16;
std::size_t one_pass_workspace(std::size_t) {
  return kTicketBytes + kMaxSumBlocks * sizeof(float);
}

void launch_one_pass(const SumArgs& args, cudaStream_t stream) {
  const char* who = "lab12 sum_one_pass";
  validate_sum(args, one_pass_workspace(args.count), who);
  const KernelLaunch config = describe_grid_stride_sum<&one_pass_sum_kernel>(args.count);
  auto* ticket = static_cast<unsigned int*>(args.workspace);
  auto* partials =
      reinterpret_cast<float*>(static_cast<unsigned char*>(args.workspace) + kTicketBytes);
  CUDA_CHECK(cudaMemsetAsync(ticket, 0, sizeof(unsigned int), stream));
  one_pass_sum_kernel<<<config.grid, config.block, 0, stream>>>(args.input, args.count, args.sum,
                                                                partials, ticket);
  CUDA_CHECK_LAUNCH(who);
}
// The blocks' partials are summed by the last block: each of its threads adds a few of them, then
// the block's shuffle tree.
std::int64_t depth_one_pass(std::size_t count) {
  const KernelLaunch config = describe_grid_stride_sum<&one_pass_sum_kernel>(count);
  return per_thread_depth(count, config) + kShuffleLevels +
         static_cast<std::int64_t>(ceil_div<unsigned>(config.grid.x, kThreadsPerBlock)) +
         kShuffleLevels;
}

constexpr SumVariant kSumVariants[] = {
    {"sum_atomic", "one atomicAdd on the output per element", &launch_atomic,
     &describe_one_per_thread<&atomic_sum_kernel>, &no_workspace, &depth_atomic, false},
    {"sum_shared_tree", "a tree in shared memory per block of 256, one atomicAdd per block",
     &launch_shared_tree, &describe_one_per_thread<&shared_tree_sum_kernel>, &no_workspace,
     &depth_shared_tree, false},
    {"sum_warp_shuffle", "the tree in registers with warp shuffles, one atomicAdd per block",
     &launch_warp_shuffle, &describe_one_per_thread<&warp_shuffle_sum_kernel>, &no_workspace,
     &depth_warp_shuffle, false},
    {"sum_multi_element", "one wave of blocks, many float4 loads per thread, then the shuffles",
     &launch_multi_element, &describe_grid_stride_sum<&multi_element_sum_kernel>, &no_workspace,
     &depth_multi_element, false},
    {"sum_one_pass", "the last block sums the blocks' partials: no float atomics, same bits",
     &launch_one_pass, &describe_grid_stride_sum<&one_pass_sum_kernel>, &one_pass_workspace,
     &depth_one_pass, true},
};

// ---- Scan ----

void validate_scan(const ScanArgs& args, std::size_t workspace_needed, const std::string& who) {
  require_pointer(args.input, "input", who);
  require_pointer(args.output, "output", who);
  require_alignment(args.input, alignof(std::uint32_t), "input", who);
  require_alignment(args.output, alignof(std::uint32_t), "output", who);
  require_count(args.count, who);
  const auto in = reinterpret_cast<std::uintptr_t>(args.input);
  const auto out = reinterpret_cast<std::uintptr_t>(args.output);
  const std::uintptr_t bytes = args.count * sizeof(std::uint32_t);
  if (in < out + bytes && out < in + bytes)
    throw std::invalid_argument(who + ": output overlaps input (an in-place scan is not offered)");
  require_workspace(args.workspace, args.workspace_bytes, workspace_needed, who);
}

std::size_t scan_tiles(std::size_t count) {
  return ceil_div<std::size_t>(count, kScanTile);
}

// Both arrays 16-byte aligned: the kernels move 4 values per 128-bit access.
bool scan_vectorized(const ScanArgs& args) {
  return reinterpret_cast<std::uintptr_t>(args.input) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(args.output) % 16 == 0;
}

template <auto kKernel>
KernelLaunch describe_tiles(std::size_t count) {
  return {reinterpret_cast<const void*>(kKernel),
          cudalabs::checked_grid(static_cast<long long>(scan_tiles(count)), 1, 1, "lab12 scan"),
          dim3(kScanThreads), 0};
}

// scan_block keeps one total per tile (rounded up to 16 bytes), which its second kernel turns into
// the tile's inclusive prefix with 128-bit accesses (require_workspace: 16-byte aligned).
std::size_t block_scan_workspace(std::size_t count) {
  return ceil_div<std::size_t>(scan_tiles(count) * sizeof(std::uint32_t), 16) * 16;
}

template <int kVector>
void run_block_scan(const ScanArgs& args, std::uint32_t* totals, cudaStream_t stream) {
  const KernelLaunch config = describe_tiles<&scan_tiles_kernel<kVector>>(args.count);
  scan_tiles_kernel<kVector>
      <<<config.grid, config.block, 0, stream>>>(args.input, args.output, args.count, totals);
  CUDA_CHECK_LAUNCH("lab12 scan_tiles_kernel");
  scan_totals_kernel<<<1, kScanThreads, 0, stream>>>(totals, scan_tiles(args.count));
  CUDA_CHECK_LAUNCH("lab12 scan_totals_kernel");
  add_offsets_kernel<kVector>
      <<<config.grid, config.block, 0, stream>>>(args.output, args.count, totals);
  CUDA_CHECK_LAUNCH("lab12 add_offsets_kernel");
}

void launch_block_scan(const ScanArgs& args, cudaStream_t stream) {
  validate_scan(args, block_scan_workspace(args.count), "lab12 scan_block");
  auto* totals = static_cast<std::uint32_t*>(args.workspace);
  if (scan_vectorized(args)) {
    run_block_scan<4>(args, totals, stream);
  } else {
    run_block_scan<1>(args, totals, stream);
  }
}

// scan_lookback's tiles are kLookbackTile values, a block of kLookbackThreads each.
std::size_t lookback_tiles(std::size_t count) {
  return ceil_div<std::size_t>(count, kLookbackTile);
}

template <auto kKernel>
KernelLaunch describe_lookback_tiles(std::size_t count) {
  return {reinterpret_cast<const void*>(kKernel),
          cudalabs::checked_grid(static_cast<long long>(lookback_tiles(count)), 1, 1,
                                 "lab12 scan_lookback"),
          dim3(kLookbackThreads), 0};
}

// scan_lookback: the tile counter (16 bytes, keeping the status words aligned), then one 64-bit
// status word per tile; all cleared before each launch.
constexpr std::size_t kCounterBytes = 16;
std::size_t lookback_workspace(std::size_t count) {
  return kCounterBytes + lookback_tiles(count) * sizeof(unsigned long long);
}

void launch_lookback_scan(const ScanArgs& args, cudaStream_t stream) {
  const char* who = "lab12 scan_lookback";
  validate_scan(args, lookback_workspace(args.count), who);
  auto* bytes = static_cast<unsigned char*>(args.workspace);
  const ScanTileState state{reinterpret_cast<unsigned int*>(bytes),
                            reinterpret_cast<unsigned long long*>(bytes + kCounterBytes)};
  CUDA_CHECK(cudaMemsetAsync(args.workspace, 0, lookback_workspace(args.count), stream));
  const KernelLaunch config = describe_lookback_tiles<&lookback_scan_kernel<4>>(args.count);
  if (scan_vectorized(args)) {
    lookback_scan_kernel<4>
        <<<config.grid, config.block, 0, stream>>>(args.input, args.output, args.count, state);
  } else {
    lookback_scan_kernel<1>
        <<<config.grid, config.block, 0, stream>>>(args.input, args.output, args.count, state);
  }
  CUDA_CHECK_LAUNCH(who);
}

constexpr ScanVariant kScanVariants[] = {
    {"scan_block", "scan each tile, scan the tiles' totals, add them back: three kernels",
     &launch_block_scan, &describe_tiles<&scan_tiles_kernel<4>>, &block_scan_workspace},
    {"scan_lookback", "one pass: each tile finds its prefix from its predecessors' (look-back)",
     &launch_lookback_scan, &describe_lookback_tiles<&lookback_scan_kernel<4>>,
     &lookback_workspace},
};

// ---- Histogram ----

void validate_histogram(const HistogramArgs& args, const std::string& who) {
  require_pointer(args.input, "input", who);
  require_pointer(args.bins, "bins", who);
  require_alignment(args.bins, alignof(std::uint32_t), "bins", who);
  require_count(args.count, who);
  if (args.count > 0xFFFFFFFFull) {
    throw std::invalid_argument(who + ": count = " + std::to_string(args.count) +
                                " must be < 2^32 (a bin is a 32-bit counter)");
  }
}

KernelLaunch describe_global_histogram(std::size_t count) {
  return {reinterpret_cast<const void*>(&global_histogram_kernel),
          cudalabs::checked_grid(element_blocks(count), 1, 1, "lab12 hist_global"),
          dim3(kThreadsPerBlock), 0};
}

// Grid-stride: each thread reads 16 bytes per step.
template <auto kKernel>
KernelLaunch describe_grid_stride_histogram(std::size_t count) {
  const void* kernel = reinterpret_cast<const void*>(kKernel);
  return {kernel, grid_stride_grid(kernel, count, 16, "lab12 histogram"), dim3(kThreadsPerBlock),
          0};
}

template <auto kKernel, KernelLaunch (*kDescribe)(std::size_t)>
void launch_histogram(const HistogramArgs& args, cudaStream_t stream, const char* who) {
  validate_histogram(args, who);
  const KernelLaunch config = kDescribe(args.count);
  CUDA_CHECK(cudaMemsetAsync(args.bins, 0, kBins * sizeof(std::uint32_t), stream));
  kKernel<<<config.grid, config.block, 0, stream>>>(args.input, args.count, args.bins);
  CUDA_CHECK_LAUNCH(who);
}

void launch_global_histogram(const HistogramArgs& args, cudaStream_t stream) {
  launch_histogram<&global_histogram_kernel, &describe_global_histogram>(args, stream,
                                                                         "lab12 hist_global");
}
void launch_shared_histogram(const HistogramArgs& args, cudaStream_t stream) {
  launch_histogram<&shared_histogram_kernel,
                   &describe_grid_stride_histogram<&shared_histogram_kernel>>(args, stream,
                                                                              "lab12 hist_shared");
}
void launch_warp_aggregated_histogram(const HistogramArgs& args, cudaStream_t stream) {
  launch_histogram<&warp_aggregated_histogram_kernel,
                   &describe_grid_stride_histogram<&warp_aggregated_histogram_kernel>>(
      args, stream, "lab12 hist_warp_aggregated");
}

constexpr HistogramVariant kHistogramVariants[] = {
    {"hist_global", "one thread per byte, one atomicAdd on the global bins each",
     &launch_global_histogram, &describe_global_histogram},
    {"hist_shared", "privatized: 256 bins per block in shared memory, merged at the end",
     &launch_shared_histogram, &describe_grid_stride_histogram<&shared_histogram_kernel>},
    {"hist_warp_aggregated", "privatized, and one atomic per distinct value per warp (match_any)",
     &launch_warp_aggregated_histogram,
     &describe_grid_stride_histogram<&warp_aggregated_histogram_kernel>},
};

}  // namespace

std::span<const SumVariant> sum_variants() {
  return kSumVariants;
}

std::span<const ScanVariant> scan_variants() {
  return kScanVariants;
}

std::span<const HistogramVariant> histogram_variants() {
  return kHistogramVariants;
}

}  // namespace lab12
