#include "scan_sweep_arrays.cuh"

#include "common/cuda_check.h"
#include "common/random_fill.h"
#include "library_reference.h"
#include "reference.h"

#include <limits>
#include <stdexcept>
#include <vector>

namespace lab12::sweep {

namespace {

__global__ void fill_random_kernel(std::uint32_t* values, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    values[i] = static_cast<std::uint32_t>(cudalabs::splitmix64_at(seed, i));
}

// mismatch[0] counts the elements that differ, mismatch[1] is the first of them (or ~0).
__global__ void compare_kernel(const std::uint32_t* got, const std::uint32_t* want,
                               std::size_t count, unsigned long long* mismatch) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (got[i] != want[i]) {
      atomicAdd(&mismatch[0], 1ull);
      atomicMin(&mismatch[1], static_cast<unsigned long long>(i));
    }
  }
}

constexpr int kHelperBlocks = 1024, kHelperThreads = 256;

}  // namespace

Arrays::Arrays(std::size_t largest)
    : input(largest + 4),
      output(largest + 4),
      reference(largest),
      workspace(workspace_bytes(largest)),
      cub_workspace(lab12_library::cub_scan_workspace(largest)) {}

void Arrays::prepare(const Problem& p, std::uint64_t seed) {
  problem = p;
  fill_random_kernel<<<kHelperBlocks, kHelperThreads>>>(input.data(), p.count + 4, seed);
  CUDA_CHECK_LAUNCH("fill_random_kernel");
  scan_with_cub(reference.data());
  CUDA_CHECK(cudaDeviceSynchronize());
}

void Arrays::scan_with_cub(std::uint32_t* into, cudaStream_t stream) {
  lab12_library::cub_inclusive_scan(in(), into, problem.count, cub_workspace.data(),
                                    cub_workspace.size(), stream);
}

std::pair<unsigned long long, unsigned long long> Arrays::mismatches() {
  const unsigned long long start[2] = {0, std::numeric_limits<unsigned long long>::max()};
  CUDA_CHECK(cudaMemcpy(mismatch.data(), start, sizeof start, cudaMemcpyHostToDevice));
  compare_kernel<<<kHelperBlocks, kHelperThreads>>>(out(), reference.data(), problem.count,
                                                    mismatch.data());
  CUDA_CHECK_LAUNCH("compare_kernel");
  unsigned long long result[2];
  CUDA_CHECK(cudaMemcpy(result, mismatch.data(), sizeof result, cudaMemcpyDeviceToHost));
  return {result[0], result[1]};
}

std::string Arrays::check(const Candidate& c) {
  for (const int poison : {0xFF, 0x00}) {
    CUDA_CHECK(cudaMemset(output.data(), poison, output.bytes()));
    c.launch(in(), out(), problem.count, workspace.data(), workspace.size(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto [count, first] = mismatches();
    if (count != 0)
      return std::to_string(count) + " values differ from CUB's at " + problem.label() +
             " (poison 0x" + (poison ? "FF" : "00") + "), the first at index " +
             std::to_string(first);
  }
  return "";
}

void Arrays::check_cub_on_cpu() {
  std::vector<std::uint32_t> host_input(problem.count), host_output(problem.count);
  CUDA_CHECK(cudaMemcpy(host_input.data(), in(), problem.count * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(host_output.data(), reference.data(), problem.count * 4, cudaMemcpyDeviceToHost));
  if (host_output != lab12::reference_inclusive_scan(host_input))
    throw std::runtime_error("CUB's scan differs from the CPU's at " + problem.label());
}

}  // namespace lab12::sweep
