// The timed pools' window totals (grader/labs/lab12_window_totals.h) against windows summed and
// counted value by value: windows inside one stride, across many, at the pool's two ends, of one
// value, over pools whose size is no multiple of the stride.
#include "grader/labs/lab12_window_totals.h"
#include "grader/labs/lab12_timed_sum.h"
#include "labs/12_reduce_scan_histogram/reference.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

namespace {

using grader::lab12_rules::HistogramTotals;
using grader::lab12_rules::SumTotals;

// (first, count) pairs of windows of a pool of `size` values.
std::vector<std::pair<std::size_t, std::size_t>> windows(std::size_t size, std::size_t stride) {
  std::vector<std::pair<std::size_t, std::size_t>> picked = {
      {0, 1}, {0, size}, {size - 1, 1}, {stride - 1, 2}, {stride, stride}, {3, stride}, {0, 0}};
  std::mt19937_64 random(77);
  for (int i = 0; i < 40; ++i) {
    const std::size_t first = random() % size;
    picked.push_back({first, random() % (size - first + 1)});
  }
  return picked;
}

TEST(WindowTotals, SumsAndNonzeroCountsAsCountedOneByOne) {
  const std::size_t size = 5 * SumTotals::kStride + 1234;
  const std::vector<float> pool = grader::lab12_rules::exact_pool(size, 3, 11);
  const SumTotals totals(pool);
  for (const auto& [first, count] : windows(size, SumTotals::kStride)) {
    std::int64_t sum = 0, nonzero = 0;
    for (std::size_t i = first; i < first + count; ++i) {
      sum += static_cast<std::int64_t>(pool[i]);
      nonzero += pool[i] != 0.0f;
    }
    const SumTotals::Totals got = totals.window(first, count);
    EXPECT_EQ(got.sum, sum) << "window " << first << " + " << count;
    EXPECT_EQ(got.nonzero, nonzero) << "window " << first << " + " << count;
  }
}

TEST(WindowTotals, HistogramsAsCountedOneByOne) {
  const std::size_t size = 3 * HistogramTotals::kStride + 999;
  for (const auto distribution :
       {lab12::ByteDistribution::kUniform, lab12::ByteDistribution::kSkewed}) {
    const std::vector<std::uint8_t> pool = lab12::histogram_inputs(size, distribution, 5);
    const HistogramTotals totals(pool);
    for (const auto& [first, count] : windows(size, HistogramTotals::kStride)) {
      HistogramTotals::Bins bins{};
      for (std::size_t i = first; i < first + count; ++i) ++bins[pool[i]];
      EXPECT_EQ(totals.window(first, count), bins) << "window " << first << " + " << count;
    }
  }
}

TEST(WindowTotals, SmallerThanOneStride) {
  const std::vector<float> pool = {1.0f, 0.0f, -1.0f, 1.0f, 1.0f};
  const SumTotals totals(pool);
  EXPECT_EQ(totals.window(0, 5).sum, 2);
  EXPECT_EQ(totals.window(1, 3).nonzero, 2);
}

}  // namespace
