#include "common/poison.h"

#include "common/cuda_check.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace cudalabs {

void poison_device(void* data, std::size_t bytes, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(data, 0xFF, bytes, stream));
}

bool is_poison(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits == 0xFFFFFFFFu;
}

std::vector<float> poisoned_host(std::size_t count) {
  float poison = 0.0f;
  const std::uint32_t bits = 0xFFFFFFFFu;
  std::memcpy(&poison, &bits, sizeof poison);
  return std::vector<float>(count, poison);
}

std::int64_t count_padding_changes(std::span<const float> before, std::span<const float> after,
                                   int m, int n, int ld) {
  if (before.size() != after.size()) {
    throw std::invalid_argument("count_padding_changes: spans differ in size (" +
                                std::to_string(before.size()) + " and " +
                                std::to_string(after.size()) + ")");
  }
  if (ld < n)
    throw std::invalid_argument("count_padding_changes: ld = " + std::to_string(ld) +
                                " < n = " + std::to_string(n));
  std::int64_t changed = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const std::size_t row = i / static_cast<std::size_t>(ld);
    const std::size_t col = i % static_cast<std::size_t>(ld);
    const bool inside = row < static_cast<std::size_t>(m) && col < static_cast<std::size_t>(n);
    if (!inside && std::memcmp(&before[i], &after[i], sizeof(float)) != 0) ++changed;
  }
  return changed;
}

}  // namespace cudalabs
