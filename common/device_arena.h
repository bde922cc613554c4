/// @file device_arena.h
/// @brief Device memory a driver's timed runs use, kept until they are timed and rechecked.
#pragma once

#include "common/cuda_check.h"
#include "common/device_buffer.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace cudalabs {

/// Allocations that live as long as the arena: the timed buffers of every run of a driver.
class DeviceArena {
 public:
  /// `count` elements of T, starting `offset` elements into their allocation (an offset moves the
  /// array off the allocation's alignment).
  template <class T>
  T* allocate(std::size_t count, std::size_t offset = 0) {
    const std::size_t bytes = std::max<std::size_t>((count + offset) * sizeof(T), 16);
    blocks_.push_back(std::make_unique<DeviceBuffer<unsigned char>>(bytes));
    return reinterpret_cast<T*>(blocks_.back()->data()) + offset;
  }

  /// A copy of `host` on the device, `offset` elements into its allocation.
  template <class T>
  T* upload(std::span<const T> host, std::size_t offset = 0) {
    T* device = allocate<T>(host.size(), offset);
    CUDA_CHECK(cudaMemcpy(device, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
    return device;
  }

 private:
  std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> blocks_;
};

}  // namespace cudalabs
