/// @file pinned_buffer.h
/// @brief RAII owner of page-locked (pinned) host memory.
#pragma once

#include "common/cuda_check.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>

namespace cudalabs {

/// A typed page-locked host array. Copies from pinned memory run at full PCIe/NVLink speed and can
/// overlap kernels when issued with cudaMemcpyAsync on a stream; pageable memory can do neither.
template <typename T>
class PinnedBuffer {
 public:
  /// An empty buffer that owns nothing.
  PinnedBuffer() = default;

  /// Allocates `count` elements (uninitialised) with cudaMallocHost.
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count_ > 0)
      CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count_ * sizeof(T)));
  }

  ~PinnedBuffer() { release(); }

  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  /// Takes over `other`'s allocation.
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}

  /// Frees this buffer's allocation and takes over `other`'s.
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  /// The host pointer (nullptr when empty).
  T* data() noexcept { return data_; }
  /// The host pointer (nullptr when empty).
  const T* data() const noexcept { return data_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// The elements as a span.
  std::span<T> span() noexcept { return {data_, count_}; }
  /// The elements as a read-only span.
  std::span<const T> span() const noexcept { return {data_, count_}; }

 private:
  void release() noexcept {
    if (data_ != nullptr) (void)cudaFreeHost(data_);  // a destructor must not throw
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cudalabs
