/// @file device_buffer.h
/// @brief RAII owner of a device allocation.
#pragma once

#include "common/cuda_check.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cudalabs {

/// A typed device array that frees itself. Move-only; copies between host and device are explicit.
template <typename T>
class DeviceBuffer {
 public:
  /// An empty buffer that owns nothing.
  DeviceBuffer() = default;

  /// Allocates `count` elements (uninitialised) with cudaMalloc.
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }

  /// Allocates a copy of `host` on the device.
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) { copy_from(host); }

  ~DeviceBuffer() { release(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Takes over `other`'s allocation.
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}

  /// Frees this buffer's allocation and takes over `other`'s.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  /// The device pointer (nullptr when empty).
  T* data() noexcept { return data_; }
  /// The device pointer (nullptr when empty).
  const T* data() const noexcept { return data_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Size in bytes.
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// Copies `host` (exactly size() elements) to the device.
  void copy_from(std::span<const T> host) {
    require_same_size(host.size(), "copy_from");
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }

  /// Copies the device array into `host` (exactly size() elements).
  void copy_to(std::span<T> host) const {
    require_same_size(host.size(), "copy_to");
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
  }

  /// Returns a host copy of the device array.
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    copy_to(host);
    return host;
  }

 private:
  void require_same_size(std::size_t host_count, const char* what) const {
    if (host_count != count_) {
      throw std::invalid_argument(std::string("DeviceBuffer::") + what + ": host span has " +
                                  std::to_string(host_count) + " elements, buffer has " +
                                  std::to_string(count_));
    }
  }

  void release() noexcept {
    // cudaFree's status is ignored on purpose: a destructor must not throw, and a failed free
    // after a sticky error has already been reported by the call that caused it.
    if (data_ != nullptr) (void)cudaFree(data_);
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cudalabs
