#include "grader/labs/lab12_timed_sum.h"

#include "common/random_fill.h"
#include "grader/referee/check_cannot_fail.h"
#include "labs/12_reduce_scan_histogram/reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace grader::lab12_rules {

std::size_t exact_stride(std::size_t count) {
  const auto limit = static_cast<std::size_t>(kExactIntegerLimit);
  if (count <= limit) return 1;
  std::size_t stride = 2;
  while ((count + stride - 1) / stride + 1 > limit) ++stride;
  return stride;
}

std::vector<float> exact_pool(std::size_t size, std::size_t stride, std::uint64_t seed) {
  std::vector<float> pool(size, 0.0f);
  const std::size_t groups = (size + stride - 1) / stride;
#pragma omp parallel for schedule(static)
  for (std::size_t g = 0; g < groups; ++g) {
    const std::uint64_t bits = cudalabs::splitmix64_at(seed, g);
    const std::size_t first = g * stride;
    const std::size_t length = std::min(stride, size - first);
    pool[first + (bits >> 1) % length] = (bits & 1) ? 1.0f : -1.0f;
  }
  return pool;
}

double timed_sum_bound(std::int64_t depth, double sum_of_magnitudes, bool integer_inputs) {
  if (integer_inputs && sum_of_magnitudes <= kExactIntegerLimit) return 0.0;
  const double bound = lab12::sum_error_bound(depth, sum_of_magnitudes);
  if (!std::isfinite(bound) || !(bound < sum_of_magnitudes)) {
    throw referee::CheckCannotFail("the timed sum's check could not fail: its bound at depth " +
                                   std::to_string(depth) + " is " + std::to_string(bound) +
                                   " against a sum of magnitudes of " +
                                   std::to_string(sum_of_magnitudes) +
                                   " (a grader defect: the timed inputs must be exactly summable)");
  }
  return bound;
}

}  // namespace grader::lab12_rules
