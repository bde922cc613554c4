#include "common/random_fill.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace cudalabs {
namespace {

TEST(FillUniform, SameSeedSameValues) {
  std::vector<float> first(1000), second(1000), other(1000);
  fill_uniform(first, 42);
  fill_uniform(second, 42);
  fill_uniform(other, 43);
  EXPECT_EQ(first, second);
  EXPECT_NE(first, other);
}

TEST(FillUniform, StaysInRangeAndIsNeverAllZero) {
  std::vector<float> values(100000);
  fill_uniform(values, 7, -1.0f, 1.0f);
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  EXPECT_GE(*low, -1.0f);
  EXPECT_LT(*high, 1.0f);
  EXPECT_LT(*low, -0.99f);
  EXPECT_GT(*high, 0.99f);
  const auto zeros = std::count(values.begin(), values.end(), 0.0f);
  EXPECT_LT(zeros, 10);
  double mean = 0;
  for (const float v : values) mean += v;
  EXPECT_NEAR(mean / values.size(), 0.0, 0.01);
}

TEST(FillUniform, RejectsEmptyRange) {
  std::vector<float> values(4);
  EXPECT_THROW(fill_uniform(values, 1, 1.0f, 1.0f), std::invalid_argument);
}

TEST(Splitmix64At, DrawsTheSerialSequenceByIndex) {
  // SplitMix64's published first outputs for seed 1234567.
  EXPECT_EQ(splitmix64_at(1234567, 0), 6457827717110365317ull);
  EXPECT_EQ(splitmix64_at(1234567, 1), 3203168211198807973ull);
  EXPECT_EQ(splitmix64_at(1234567, 4), 16408922859458223821ull);
  // fill_uniform draws the same sequence: the top 24 bits of draw i give values[i].
  std::vector<float> values(5);
  fill_uniform(values, 99, 0.0f, 1.0f);
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i],
              static_cast<float>(static_cast<double>(splitmix64_at(99, i) >> 40) * 0x1.0p-24))
        << i;
  }
}

TEST(DeriveSeed, DependsOnNameAndRunSeed) {
  EXPECT_EQ(derive_seed(1, "A"), derive_seed(1, "A"));
  EXPECT_NE(derive_seed(1, "A"), derive_seed(1, "B"));
  EXPECT_NE(derive_seed(1, "A"), derive_seed(2, "A"));
}

TEST(RunSeed, IsStableWithinAProcess) {
  EXPECT_EQ(run_seed(), run_seed());
}

}  // namespace
}  // namespace cudalabs
