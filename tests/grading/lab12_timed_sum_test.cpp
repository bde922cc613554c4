// Lab 12's timed sums: the pool every order of FP32 additions sums exactly, and the bound that
// follows from it, which a skipped or partial sum cannot meet and which is never infinite.
#include "grader/labs/lab12_timed_sum.h"

#include "grader/referee/check_cannot_fail.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using grader::lab12_rules::exact_pool;
using grader::lab12_rules::exact_stride;
using grader::lab12_rules::kExactIntegerLimit;
using grader::lab12_rules::timed_sum_bound;

constexpr std::size_t kLimit = static_cast<std::size_t>(kExactIntegerLimit);

std::int64_t exact_sum(const std::vector<float>& values, std::size_t first, std::size_t count) {
  std::int64_t sum = 0;
  for (std::size_t i = first; i < first + count; ++i) sum += static_cast<std::int64_t>(values[i]);
  return sum;
}

// Floats summed in three orders a rung may take: one chain, a tree of blocks of 256 whose sums are
// added in a shuffled order (atomics), and pairwise halving.
std::vector<float> sums_in_orders(const std::vector<float>& values, std::size_t first,
                                  std::size_t count, std::uint64_t seed) {
  float chain = 0.0f;
  for (std::size_t i = first; i < first + count; ++i) chain += values[i];
  std::vector<float> blocks;
  for (std::size_t b = first; b < first + count; b += 256) {
    std::vector<float> tree(values.begin() + b, values.begin() + std::min(b + 256, first + count));
    for (std::size_t width = 1; width < tree.size(); width *= 2)
      for (std::size_t i = 0; i + width < tree.size(); i += 2 * width) tree[i] += tree[i + width];
    blocks.push_back(tree[0]);
  }
  std::shuffle(blocks.begin(), blocks.end(), std::mt19937_64(seed));
  float atomics = 0.0f;
  for (float block : blocks) atomics += block;
  std::vector<float> pairwise(values.begin() + first, values.begin() + first + count);
  for (std::size_t width = 1; width < pairwise.size(); width *= 2)
    for (std::size_t i = 0; i + width < pairwise.size(); i += 2 * width)
      pairwise[i] += pairwise[i + width];
  return {chain, atomics, pairwise[0]};
}

TEST(TimedSum, StrideKeepsEveryWindowAtMostTwoToThe24Nonzero) {
  EXPECT_EQ(exact_stride(1), 1u);
  EXPECT_EQ(exact_stride(kLimit), 1u);
  EXPECT_EQ(exact_stride(kLimit + 1), 2u);
  EXPECT_EQ(exact_stride(std::size_t{1} << 26), 5u);  // 4 would allow 2^24 + 1 in a window
  for (std::size_t count : {kLimit + 1, std::size_t{3} << 23, std::size_t{1} << 26}) {
    const std::size_t stride = exact_stride(count);
    EXPECT_LE((count + stride - 1) / stride + 1, kLimit) << count;
  }
  // Measured: the pool's busiest window of 2^24 + 2^20 elements.
  const std::size_t count = kLimit + (std::size_t{1} << 20);
  const std::vector<float> pool = exact_pool(count + 4096, exact_stride(count), 7);
  std::size_t nonzero = 0, most = 0;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    nonzero += pool[i] != 0.0f;
    if (i >= count) nonzero -= pool[i - count] != 0.0f;
    if (i + 1 >= count) most = std::max(most, nonzero);
  }
  EXPECT_LE(most, kLimit);
  EXPECT_GT(most, kLimit / 2);
}

TEST(TimedSum, PoolIsPlusOrMinusOneOncePerGroupAtRandomPlaces) {
  const std::vector<float> pool = exact_pool(10007, 5, 11);
  std::vector<int> places(5, 0);
  for (std::size_t g = 0; g * 5 < pool.size(); ++g) {
    int nonzero = 0;
    for (std::size_t i = g * 5; i < std::min(pool.size(), g * 5 + 5); ++i) {
      if (pool[i] != 0.0f) {
        EXPECT_TRUE(pool[i] == 1.0f || pool[i] == -1.0f);
        ++nonzero;
        ++places[i - g * 5];
      }
    }
    EXPECT_EQ(nonzero, 1) << g;
  }
  for (int count : places) EXPECT_GT(count, 300);  // every place taken, none favoured much
  EXPECT_NE(exact_pool(1000, 1, 1), exact_pool(1000, 1, 2));
}

TEST(TimedSum, EveryOrderIsExactAndASkippedElementIsNot) {
  const std::size_t count = (std::size_t{1} << 20) + 17;
  const std::vector<float> pool = exact_pool(count + 1000, exact_stride(count), 3);
  for (std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{999}}) {
    const std::int64_t exact = exact_sum(pool, first, count);
    const double bound = timed_sum_bound(static_cast<std::int64_t>(count), count, true);
    EXPECT_EQ(bound, 0.0);
    for (float sum : sums_in_orders(pool, first, count, first))
      EXPECT_EQ(static_cast<double>(sum), static_cast<double>(exact));
    // One element fewer (it is +-1): off by 1, past the bound; one element only: far past it.
    const double skipped = static_cast<double>(exact - static_cast<std::int64_t>(pool[first]));
    EXPECT_GT(std::abs(skipped - static_cast<double>(exact)), bound);
    EXPECT_GT(std::abs(static_cast<double>(pool[first]) - static_cast<double>(exact)), bound);
  }
}

TEST(TimedSum, BoundIsNeverInfiniteAndCanFail) {
  // The case: zero-mean floats at 2^26 elements. The atomic rung's depth 2^26 gives
  // depth x 2^-24 = 4: no finite bound; the trees' 5e5 against sums of about 5e3: cannot fail.
  const double n = 67108864.0, magnitudes = n / 2;
  EXPECT_THROW(timed_sum_bound(static_cast<std::int64_t>(n), magnitudes, false),
               grader::referee::CheckCannotFail);
  EXPECT_THROW(timed_sum_bound(static_cast<std::int64_t>(n), n, true),
               grader::referee::CheckCannotFail);
  const double trees = timed_sum_bound(255 + 262144, magnitudes, false);
  EXPECT_GT(trees, 4.0e5);  // finite, but a zero-mean sum of 5e3 is inside it: why the pool is not
  EXPECT_LT(trees, magnitudes);
  // Integers up to 2^24 in magnitude sum exactly in any order, whatever the depth.
  EXPECT_EQ(timed_sum_bound(static_cast<std::int64_t>(n), kExactIntegerLimit, true), 0.0);
  EXPECT_GT(timed_sum_bound(1000, kExactIntegerLimit + 1, true), 0.0);
}

}  // namespace
