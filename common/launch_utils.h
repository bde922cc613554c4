/// @file launch_utils.h
/// @brief Grid arithmetic and the shared-memory opt-in, shared by the labs' launchers.
#pragma once

#include "common/cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace cudalabs {

/// ceil(a / b) for positive integers: the number of tiles of size b that cover a.
template <std::integral T>
constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

/// Whether `pointer` is a multiple of `bytes` (a launcher's check before vector loads or TMA).
inline bool aligned_to(const void* pointer, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

/// A grid of x * y * z blocks, checked against CUDA's limits (x < 2^31, y and z <= 65535). Throws
/// std::invalid_argument naming `who` and the dimension that does not fit, instead of letting the
/// launch fail with "invalid configuration argument".
dim3 checked_grid(long long x, long long y, long long z, const std::string& who);

/// The current GPU's multiprocessors, asked of the runtime once per device: a launch that sizes a
/// persistent grid needs the count at every call, and each question to the runtime costs host time
/// that a GEMM of a few microseconds notices.
inline int multiprocessor_count() {
  constexpr int kRemembered = 64;  // devices whose count is kept; others are asked every time
  static std::atomic<int> counts[kRemembered] = {};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device < kRemembered) {
    if (const int known = counts[device].load(std::memory_order_relaxed); known > 0) return known;
  }
  int count = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  if (device < kRemembered) counts[device].store(count, std::memory_order_relaxed);
  return count;
}

/// Lets `kernel` take `bytes` of dynamic shared memory per block on the current GPU. Above 48 KiB a
/// kernel must opt in (cudaFuncAttributeMaxDynamicSharedMemorySize) before it is launched or its
/// occupancy is queried, so a variant's describe() calls this as its launch does: what describe()
/// returns is then a launch the runtime gives blocks to. Does nothing at 48 KiB or less, without a
/// GPU (a description read on the CPU, as the resource gate reads them) and for a kernel with no
/// code for this GPU (its variant reports itself unavailable). Throws CudaError otherwise. The
/// runtime is asked once per kernel, device and size (an attribute holds for the process's life):
/// a launcher calls this at every launch. Inline, on the CUDA runtime alone: a student's kernels.cu
/// reaches it through the lab's launch.cuh.
inline void allow_dynamic_shared_memory(const void* kernel, std::size_t bytes) {
  constexpr std::size_t kWithoutOptIn = 48 * 1024;
  if (bytes <= kWithoutOptIn) return;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();  // no GPU: nothing to opt in, and no error left for the next check
    return;
  }
  static std::mutex guard;
  static std::map<std::pair<int, const void*>, std::size_t> allowed;  // (device, kernel): bytes
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  {
    const std::lock_guard<std::mutex> lock(guard);
    if (const auto found = allowed.find({device, kernel});
        found != allowed.end() && found->second >= bytes)
      return;
  }
  cudaFuncAttributes attributes{};
  const cudaError_t found = cudaFuncGetAttributes(&attributes, kernel);
  if (found == cudaErrorNoKernelImageForDevice || found == cudaErrorInvalidDeviceFunction) {
    (void)cudaGetLastError();  // not this GPU's kernel: its variant says it is unavailable
    return;
  }
  CUDA_CHECK(found);
  if (static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) < bytes) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
  }
  const std::lock_guard<std::mutex> lock(guard);
  std::size_t& known = allowed[{device, kernel}];
  known = std::max(known, bytes);
}

}  // namespace cudalabs
