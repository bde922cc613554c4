// Lab 00 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining copy_kernel and fma_kernel).
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lab00 {

// A grid-stride copy needs only enough blocks to fill the machine: 8 blocks of 256 threads per SM
// (full occupancy on every architecture of the suite), fewer when there is little to copy.
cudalabs::KernelLaunch describe_copy(std::size_t count) {
  const long long wanted =
      static_cast<long long>((count / 4 + kThreadsPerBlock) / kThreadsPerBlock);
  const long long blocks =
      std::max(1LL, std::min<long long>(wanted, 8LL * cudalabs::multiprocessor_count()));
  return {reinterpret_cast<const void*>(&copy_kernel),
          cudalabs::checked_grid(blocks, 1, 1, "lab00 copy"), dim3(kThreadsPerBlock), 0};
}

cudalabs::KernelLaunch describe_fma(long long threads) {
  return {reinterpret_cast<const void*>(&fma_kernel),
          cudalabs::checked_grid((threads + kThreadsPerBlock - 1) / kThreadsPerBlock, 1, 1,
                                 "lab00 fma"),
          dim3(kThreadsPerBlock), 0};
}

void launch_copy(const float* src, float* dst, std::size_t count, cudaStream_t stream) {
  if (src == nullptr || dst == nullptr) throw std::invalid_argument("lab00 copy: null pointer");
  if (count == 0) throw std::invalid_argument("lab00 copy: count = 0 must be >= 1");
  const cudalabs::KernelLaunch config = describe_copy(count);
  copy_kernel<<<config.grid, config.block, 0, stream>>>(src, dst, count);
  CUDA_CHECK_LAUNCH("lab00 copy_kernel");
}

void launch_fma(float* out, long long threads, int iterations, cudaStream_t stream) {
  if (out == nullptr) throw std::invalid_argument("lab00 fma: null pointer");
  if (threads < 1)
    throw std::invalid_argument("lab00 fma: threads = " + std::to_string(threads) +
                                " must be >= 1");
  if (iterations < 1) {
    throw std::invalid_argument("lab00 fma: iterations = " + std::to_string(iterations) +
                                " must be >= 1");
  }
  const cudalabs::KernelLaunch config = describe_fma(threads);
  fma_kernel<<<config.grid, config.block, 0, stream>>>(out, threads, iterations);
  CUDA_CHECK_LAUNCH("lab00 fma_kernel");
}

}  // namespace lab00
