// Lab 11's FP8 study (fp8_rounding.h): E4M3's rounding worked by hand (nearest even, saturation,
// the smallest subnormal), and the scales: a tensor's largest magnitude and each channel's stay
// exact (they map to 448), zeros stay zeros, every value lands within E4M3's relative step of
// itself, and a channel of small weights keeps its precision only with its own scale.
#include "common/random_fill.h"
#include "labs/11_tensor_cores/fp8_rounding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace {

TEST(RoundToE4m3, WorkedByHand) {
  EXPECT_EQ(lab11::round_to_e4m3(448.0f), 448.0f);  // the largest finite value
  EXPECT_EQ(lab11::round_to_e4m3(500.0f), 448.0f);  // saturated, not infinite
  EXPECT_EQ(lab11::round_to_e4m3(-1e6f), -448.0f);
  EXPECT_EQ(lab11::round_to_e4m3(1.0625f), 1.0f);   // halfway: to the even mantissa
  EXPECT_EQ(lab11::round_to_e4m3(1.1875f), 1.25f);  // halfway: to the even mantissa
  EXPECT_EQ(lab11::round_to_e4m3(-3.3f), -3.25f);   // 3 mantissa bits: steps of 0.25 here
  EXPECT_EQ(lab11::round_to_e4m3(0.001953125f), 0.001953125f);  // 2^-9, the smallest subnormal
  EXPECT_EQ(lab11::round_to_e4m3(0.0009765625f), 0.0f);         // 2^-10: halfway to 0, even
  EXPECT_EQ(lab11::round_to_e4m3(0.0f), 0.0f);
}

TEST(RoundE4m3PerTensor, KeepsTheLargestAndStaysWithinAStep) {
  std::vector<float> draw(1000);
  cudalabs::fill_uniform(draw, 7, -3.0f, 3.0f);
  std::vector<double> values(draw.begin(), draw.end());
  values[17] = -5.5;  // the largest magnitude
  const std::vector<double> before = values;
  lab11::round_e4m3_per_tensor(values);
  EXPECT_DOUBLE_EQ(values[17], -5.5);
  const double scale = 5.5 / 448.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    // Normal E4M3 values are within 2^-4 of themselves; below 2^-6 the subnormals' step 2^-9.
    const double bound = std::max(std::abs(before[i]) / 16.0, scale * 0x1p-10) * 1.000001;
    EXPECT_LE(std::abs(values[i] - before[i]), bound) << "value " << i;
  }
  std::vector<double> zeros(5, 0.0);
  lab11::round_e4m3_per_tensor(zeros);
  EXPECT_EQ(zeros, std::vector<double>(5, 0.0));
}

TEST(RoundE4m3PerChannel, EachChannelKeepsItsOwnRange) {
  // [2][3][C = 4] with K = 3 channels in the middle: channel k holds the values at (i / 4) % 3 ==
  // k.
  std::vector<float> values(2 * 3 * 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int channel = static_cast<int>(i / 4 % 3);
    values[i] = (channel == 1 ? 1e-5f : 10.0f) * (1.0f + 0.01f * static_cast<float>(i));
  }
  std::vector<float> per_channel = values, per_tensor = values;
  lab11::round_e4m3_per_channel(per_channel, 3, 4);
  lab11::round_e4m3_per_channel(per_tensor, 1, static_cast<int>(values.size()));
  double worst_own = 0.0, worst_shared = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i / 4 % 3 != 1) continue;  // the small channel
    worst_own = std::max(worst_own, std::abs(per_channel[i] / values[i] - 1.0));
    worst_shared = std::max(worst_shared, std::abs(per_tensor[i] / values[i] - 1.0));
  }
  EXPECT_LE(worst_own, 1.0 / 16.0);  // its own scale: E4M3's relative step
  EXPECT_GT(worst_shared, 0.5);      // the large channels' scale leaves it below E4M3's range
  EXPECT_THROW(lab11::round_e4m3_per_channel(per_channel, 0, 4), std::invalid_argument);
}

}  // namespace
