/// @file labs/12_reduce_scan_histogram/vectors.cuh
/// @brief Splitting an array of any alignment into the elements before its first 16-byte boundary,
/// whole 16-byte vectors, and the elements after the last whole vector (given code).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace lab12 {

/// How an array of `count` elements splits for 128-bit loads: `head` elements before the first
/// 16-byte boundary (fewer than 16 / sizeof(T)), `vectors` whole 16-byte vectors from there, and
/// `tail` elements after them. head + vectors * (16 / sizeof(T)) + tail == count.
struct VectorSplit {
  std::size_t head;     ///< elements read one at a time before the first vector
  std::size_t vectors;  ///< 16-byte vectors starting at element `head`
  std::size_t tail;     ///< elements read one at a time after the last vector
};

/// The split of the `count` elements at `data` (which must be aligned to sizeof(T)).
template <class T>
__host__ __device__ inline VectorSplit split_for_vectors(const T* data, std::size_t count) {
  constexpr std::size_t kPerVector = 16 / sizeof(T);
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(data) % 16) / sizeof(T);
  std::size_t head = misaligned == 0 ? 0 : kPerVector - misaligned;
  if (head > count) head = count;
  const std::size_t vectors = (count - head) / kPerVector;
  return {head, vectors, count - head - vectors * kPerVector};
}

}  // namespace lab12
