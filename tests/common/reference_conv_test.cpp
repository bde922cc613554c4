// The CPU reference convolution against cases worked by hand: layouts, cross-correlation (no filter
// flip), magnitudes, and the sampled variant against the dense one.
#include "common/reference_conv.h"
#include "common/random_fill.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace {

using cudalabs::ConvShape;

TEST(ReferenceConv, TwoByTwoFilterOnThreeByThreeImage) {
  // out[p][q] = x[p][q] * 1 + x[p+1][q+1] * -1
  const ConvShape shape{1, 3, 3, 1, 1, 2, 2};
  const std::vector<float> input = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<float> filter = {1, 0, 0, -1};
  const cudalabs::ReferenceValues ref = cudalabs::reference_conv2d(shape, input, filter);
  ASSERT_EQ(ref.m, 2);
  ASSERT_EQ(ref.n, 2);
  EXPECT_EQ(ref.value, (std::vector<double>{-4, -4, -4, -4}));
  EXPECT_EQ(ref.magnitude, (std::vector<double>{6, 8, 12, 14}));
}

TEST(ReferenceConv, IsACrossCorrelation) {
  // A 1 x 2 filter [1, 10] over the row [1, 2, 3]: 1*1 + 2*10 and 2*1 + 3*10, not flipped.
  const ConvShape shape{1, 1, 3, 1, 1, 1, 2};
  const cudalabs::ReferenceValues ref =
      cudalabs::reference_conv2d(shape, std::vector<float>{1, 2, 3}, std::vector<float>{1, 10});
  EXPECT_EQ(ref.value, (std::vector<double>{21, 32}));
}

TEST(ReferenceConv, BatchChannelsAndFiltersLandInNfpqOrder) {
  // Two 2 x 2 images of two channels, two 1 x 1 filters.
  const ConvShape shape{2, 2, 2, 2, 2, 1, 1};
  const std::vector<float> input = {
      1, 1, 1, 1, 2, 2, 2, 2,                    // image 0: channel 0 all 1, channel 1 all 2
      1, 2, 3, 4, 0, 0, 0, 0};                   // image 1: channel 0 = 1..4, channel 1 all 0
  const std::vector<float> filter = {3, -1,      // filter 0: 3 * c0 - c1
                                     0.5, 0.5};  // filter 1: (c0 + c1) / 2
  const cudalabs::ReferenceValues ref = cudalabs::reference_conv2d(shape, input, filter);
  ASSERT_EQ(ref.m, 2 * 2 * 2);  // (n, f, p) rows
  ASSERT_EQ(ref.n, 2);
  EXPECT_EQ(ref.value, (std::vector<double>{1, 1, 1, 1,          // n0 f0
                                            1.5, 1.5, 1.5, 1.5,  // n0 f1
                                            3, 6, 9, 12,         // n1 f0
                                            0.5, 1, 1.5, 2}));   // n1 f1
  EXPECT_EQ(ref.magnitude[0], 3 + 2);                            // |3 * 1| + |-1 * 2|
}

TEST(ReferenceConv, SampledElementsMatchTheDenseReference) {
  const ConvShape shape{3, 11, 9, 4, 5, 3, 2};
  std::vector<float> input(shape.input_elements()), filter(shape.filter_elements());
  cudalabs::fill_uniform(input, 1);
  cudalabs::fill_uniform(filter, 2);
  const cudalabs::ReferenceValues dense = cudalabs::reference_conv2d(shape, input, filter);
  const std::vector<std::int64_t> positions = {0, 7, 100, dense.m * std::int64_t{dense.n} - 1};
  const cudalabs::ReferenceValues sampled =
      cudalabs::reference_conv2d_at(shape, input, filter, positions);
  ASSERT_EQ(sampled.size(), positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    EXPECT_EQ(sampled.value[i], dense.value[positions[i]]) << positions[i];
    EXPECT_EQ(sampled.magnitude[i], dense.magnitude[positions[i]]) << positions[i];
    EXPECT_EQ(sampled.row_of(i), dense.row_of(positions[i]));
  }
}

TEST(ReferenceConv, RejectsShortInputsAndBadPositions) {
  const ConvShape shape{1, 3, 3, 1, 1, 2, 2};
  const std::vector<float> nine(9, 1.0f), four(4, 1.0f), three(3, 1.0f);
  EXPECT_THROW(cudalabs::reference_conv2d(shape, four, four), std::invalid_argument);
  EXPECT_THROW(cudalabs::reference_conv2d(shape, nine, three), std::invalid_argument);
  EXPECT_THROW(cudalabs::reference_conv2d_at(shape, nine, four, {4}), std::invalid_argument);
  EXPECT_THROW(cudalabs::reference_conv2d_at(shape, nine, four, {-1}), std::invalid_argument);
}

}  // namespace
