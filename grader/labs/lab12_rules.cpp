#include "grader/labs/lab12_rules.h"

#include "labs/12_reduce_scan_histogram/lab.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

namespace grader::lab12_rules {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

int multiprocessors() {
  int device = 0, count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      count < 1) {
    (void)cudaGetLastError();
    throw std::runtime_error(
        "the referee cannot read the GPU's multiprocessor count (the sum's error bound needs it)");
  }
  return count;
}

}  // namespace

std::int64_t addition_depth(const std::string& name, std::size_t count) {
  const auto n = static_cast<std::int64_t>(count);
  const std::int64_t block = lab12::kThreadsPerBlock;
  std::int64_t depth =
      n;  // one chain through every element: sum_atomic, and any rung not known here
  if (name == "sum_shared_tree" || name == "sum_warp_shuffle") {
    // One element a thread: a block's 256 in any order (255 additions deep at most), then one
    // atomicAdd a block on the output, in whatever order the blocks come.
    depth = (block - 1) + ceil_div(n, block);
  } else if (name == "sum_multi_element" || name == "sum_one_pass") {
    // One wave of g blocks: launch.cuh launches min(wanted, resident) blocks, clamped to
    // [1, kMaxSumBlocks], and at least one block fits on each multiprocessor. A thread adds its
    // float4s' elements and at most one element before the first vector and one after the last,
    // in any order; the block its 256 threads' sums; then the g blocks' sums (atomics, or the last
    // block's) in any order. The worst g of that range.
    const std::int64_t wanted = std::max<std::int64_t>(ceil_div(n, 4 * block), 1);
    const std::int64_t high = std::min<std::int64_t>(wanted, lab12::kMaxSumBlocks);
    const std::int64_t low = std::min<std::int64_t>(high, multiprocessors());
    depth = 0;
    for (std::int64_t g = low; g <= high; ++g)
      depth = std::max(depth, 4 * ceil_div(n, 4 * block * g) + 2 + (block - 1) + g);
  }
  return std::min(depth, n);
}

bool deterministic(const std::string& name) {
  return name == "sum_one_pass";
}

std::size_t workspace_cap(std::size_t count) {
  return (std::size_t{64} << 20) + 8 * count;
}

}  // namespace grader::lab12_rules
