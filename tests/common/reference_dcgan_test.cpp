// The CPU reference generator: each layer against cases worked by hand, the transposed convolution
// against a second formulation (scatter instead of gather), and the whole generator's invariants.
#include "common/reference_dcgan.h"
#include "common/dcgan_check.h"
#include "common/dcgan_files.h"
#include "common/random_fill.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using dcgan::TconvShape;

std::vector<float> filter_5x5(
    const std::vector<std::pair<int, float>>& taps) {  // one channel in and out
  std::vector<float> f(25, 0.0f);
  for (auto [index, value] : taps) f[index] = value;
  return f;
}

TEST(ReferenceTconv, OnePixelLandsOnTheFilterCentre) {
  // A 1 x 1 input v gives a 2 x 2 output: out(y, x) = v * filter[y + 1][x + 1] (input row (y + 1 -
  // r) / 2 = 0).
  std::vector<float> filter(25);
  for (int i = 0; i < 25; ++i) filter[i] = static_cast<float>(i);  // filter[r][s] = 5 r + s
  const std::vector<double> out = dcgan::reference_tconv({1, 1, 1, 1, 1}, std::vector<double>{2.0},
                                                         filter, std::vector<float>{0.5f});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out, (std::vector<double>{2 * 6 + 0.5, 2 * 7 + 0.5, 2 * 11 + 0.5, 2 * 12 + 0.5}));
}

TEST(ReferenceTconv, TwoPixelsInARowWorkedByHand) {
  // Input 1 x 2 = [a, b], filter with only row r = 1 non-zero: f[1][s] = s + 1 (1..5).
  // Output row 0 (r = 1 meets input row 0), columns x = 0..3: input column (x + 1 - s) / 2.
  //   x = 0: s = 1 -> a * 2;             x = 1: s = 0 -> b * 1, s = 2 -> a * 3
  //   x = 2: s = 1 -> b * 2, s = 3 -> a * 4;   x = 3: s = 2 -> b * 3, s = 4 -> a * 5
  // Output row 1 needs r even: all zero.
  const double a = 1.5, b = -2.0;
  const std::vector<float> filter = filter_5x5({{5, 1}, {6, 2}, {7, 3}, {8, 4}, {9, 5}});
  const std::vector<double> out = dcgan::reference_tconv({1, 1, 2, 1, 1}, std::vector<double>{a, b},
                                                         filter, std::vector<float>{0});
  EXPECT_EQ(out, (std::vector<double>{2 * a, b + 3 * a, 2 * b + 4 * a, 3 * b + 5 * a, 0, 0, 0, 0}));
}

TEST(ReferenceTconv, ChannelsUseTheRsKcLayout) {
  // C = 2 in, K = 2 out, 1 x 1 input [p, q], only the tap (1, 1): out(0, 0, k) = sum_c in[c]
  // f[1][1][k][c].
  std::vector<float> filter(25 * 2 * 2, 0.0f);
  const int tap = (1 * 5 + 1) * 4;
  filter[tap + 0] = 1;    // k 0, c 0
  filter[tap + 1] = 10;   // k 0, c 1
  filter[tap + 2] = 100;  // k 1, c 0
  filter[tap + 3] = 0.5;  // k 1, c 1
  const std::vector<double> out = dcgan::reference_tconv({1, 1, 1, 2, 2}, std::vector<double>{2, 4},
                                                         filter, std::vector<float>{0, 0});
  EXPECT_EQ(out[0], 2 * 1 + 4 * 10);
  EXPECT_EQ(out[1], 2 * 100 + 4 * 0.5);
}

TEST(ReferenceTconv, GatherEqualsScatterOnOddShapes) {
  for (const TconvShape& shape : {TconvShape{2, 3, 5, 3, 4}, TconvShape{1, 1, 1, 2, 3},
                                  TconvShape{3, 4, 1, 1, 2}, TconvShape{1, 6, 6, 5, 1}}) {
    std::vector<float> input(shape.input_elements()), filter(shape.filter_elements()),
        bias(shape.out_channels);
    cudalabs::fill_uniform(input, 1);
    cudalabs::fill_uniform(filter, 2);
    cudalabs::fill_uniform(bias, 3);
    const std::vector<double> in(input.begin(), input.end());
    const std::vector<double> gather = dcgan::reference_tconv(shape, in, filter, bias);
    const std::vector<double> scatter = dcgan::reference_tconv_scatter(shape, in, filter, bias);
    ASSERT_EQ(gather.size(), scatter.size());
    for (std::size_t e = 0; e < gather.size(); ++e)
      EXPECT_NEAR(gather[e], scatter[e], 1e-12) << "element " << e;
  }
}

TEST(ReferenceTconv, UsefulMacsCountTheRealTaps) {
  // Count by brute force: every (output, r, s) that meets a real input pixel, times C.
  for (const TconvShape& shape :
       {TconvShape{1, 4, 4, 2, 3}, TconvShape{2, 1, 3, 1, 1}, TconvShape{1, 32, 32, 1, 1}}) {
    double count = 0;
    for (int y = 0; y < 2 * shape.height; ++y)
      for (int x = 0; x < 2 * shape.width; ++x)
        for (int r = 0; r < 5; ++r)
          for (int s = 0; s < 5; ++s) {
            const int i2 = y + 1 - r, j2 = x + 1 - s;
            count += i2 >= 0 && j2 >= 0 && i2 % 2 == 0 && j2 % 2 == 0 && i2 / 2 < shape.height &&
                     j2 / 2 < shape.width;
          }
    EXPECT_EQ(shape.useful_macs(), count * shape.batch * shape.in_channels * shape.out_channels);
  }
  // Away from the borders a quarter of the 25 taps is real (6.25 per output), which would make
  // 0.327 GFLOP per image; the borders of the small early layers lose taps, so the exact count is
  // lower.
  double flops = 2.0 * 100 * 8192, interior = flops;
  for (int layer = 1; layer <= 4; ++layer) {
    const TconvShape shape = dcgan::generator_layer(layer, 1);
    flops += 2.0 * shape.useful_macs();
    interior += 2.0 * 6.25 * shape.output_elements() * shape.in_channels;
  }
  EXPECT_NEAR(interior, 0.327e9, 0.001e9);
  EXPECT_GT(flops, 0.25e9);
  EXPECT_LT(flops, interior);
}

TEST(ReferenceTconv, RejectsShortSpansAndBadSizes) {
  const std::vector<double> input(3);
  const std::vector<float> filter(25), bias(1);
  EXPECT_THROW(dcgan::reference_tconv({1, 2, 2, 1, 1}, input, filter, bias), std::invalid_argument);
  EXPECT_THROW(dcgan::reference_tconv({1, 0, 2, 1, 1}, input, filter, bias), std::invalid_argument);
  try {
    dcgan::validate(TconvShape{1, 2, 2, 1, -4}, "who");
    ADD_FAILURE() << "accepted out_channels = -4";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "who: out_channels = -4 must be >= 1");
  }
}

TEST(ReferenceBatchNorm, WorkedByHandWithRelu) {
  // Channel 0: scale 2, offset 1, mean 3, variance 4 - eps: y = 2 (x - 3) / 2 + 1 = x - 2.
  // Channel 1: scale 1, offset 0, mean 0, variance 1 - eps: identity, then ReLU.
  const float eps = dcgan::kBatchNormEpsilon;
  std::vector<double> values = {5, -1, 1, 2};  // (c0, c1), (c0, c1)
  dcgan::reference_batch_norm(values, 2, std::vector<float>{2, 1}, std::vector<float>{1, 0},
                              std::vector<float>{3, 0}, std::vector<float>{4 - eps, 1 - eps}, true);
  EXPECT_NEAR(values[0], 3, 1e-6);
  EXPECT_EQ(values[1], 0);  // -1 through ReLU
  EXPECT_EQ(values[2], 0);  // 1 - 2 = -1 through ReLU
  EXPECT_NEAR(values[3], 2, 1e-6);
  EXPECT_THROW(dcgan::reference_batch_norm(values, 3, {}, {}, {}, {}, false),
               std::invalid_argument);
}

TEST(ReferenceLinear, OutputJIsTheDotWithColumnJPlusBias) {
  dcgan::Weights weights = dcgan::default_weights(5);
  std::vector<float> z(100, 0.0f);
  z[7] = 2.0f;  // picks row 7 of linear.weight
  const std::vector<double> out = dcgan::reference_linear(weights, z, 1);
  const std::vector<float>& w = weights["linear.weight"];
  const std::vector<float>& b = weights["linear.bias"];
  for (int j : {0, 511, 512, 8191}) EXPECT_DOUBLE_EQ(out[j], 2.0 * w[7 * 8192 + j] + b[j]);
}

TEST(ReferenceGenerator, GivesImagesInRangeOnePerLatentIndependentOfTheBatch) {
  const dcgan::Weights weights = dcgan::default_weights(3);
  std::vector<float> z(2 * 100);
  cudalabs::fill_uniform(z, 4);
  const std::vector<double> both = dcgan::reference_generator(weights, z, 2);
  ASSERT_EQ(both.size(), 2u * 64 * 64 * 3);
  double spread = 0;
  for (double v : both) {
    ASSERT_LE(std::abs(v), 1.0);
    spread = std::max(spread, std::abs(v));
  }
  EXPECT_GT(spread, 1e-3);  // not a constant image
  // Inference-form batch norm: image 1 alone equals image 1 of the pair.
  const std::vector<double> second =
      dcgan::reference_generator(weights, std::vector<float>(z.begin() + 100, z.end()), 1);
  for (std::size_t e = 0; e < second.size(); ++e) ASSERT_EQ(second[e], both[64 * 64 * 3 + e]);
}

TEST(ReferenceGenerator, LayerShapesFollowDcganShpc) {
  const TconvShape l1 = dcgan::generator_layer(1, 5), l4 = dcgan::generator_layer(4, 5);
  EXPECT_EQ(l1.height, 4);
  EXPECT_EQ(l1.in_channels, 512);
  EXPECT_EQ(l1.out_channels, 256);
  EXPECT_EQ(l4.height, 32);
  EXPECT_EQ(l4.in_channels, 64);
  EXPECT_EQ(l4.out_channels, 3);
  EXPECT_EQ(l4.output_elements(), 5u * 64 * 64 * 3);
  EXPECT_THROW(dcgan::generator_layer(5, 1), std::invalid_argument);
}

// The trained generator (its activations are far from zero, unlike the builtin weights', so
// rounding shows) at the precisions of lab 11's DCGAN.
class ReferenceAtPrecision : public ::testing::Test {
 protected:
  static constexpr int kCount = 4;
  void SetUp() override {
    weights_ = dcgan::read_weights(std::string(CUDALABS_TEST_SOURCE_DIR) +
                                   "/labs/09_dcgan/fashion_mnist.cldw");
    latents_.resize(kCount * 100);
    cudalabs::fill_uniform(latents_, 24, -1.0f, 1.0f);
    exact_ = dcgan::reference_generator(weights_, latents_, kCount);
  }
  // Checks `images` against the exact reference as a GPU's images at `precision` are checked.
  dcgan::ImageCheck check(const std::vector<double>& images, cudalabs::ComputePrecision precision) {
    const std::vector<float> floats(images.begin(), images.end());
    return dcgan::check_images(floats, {0, 1, 2, 3}, exact_, precision);
  }
  dcgan::Weights weights_;
  std::vector<float> latents_;
  std::vector<double> exact_;
};

TEST_F(ReferenceAtPrecision, Fp32IsTheExactReference) {
  EXPECT_EQ(
      dcgan::reference_generator(weights_, latents_, kCount, cudalabs::ComputePrecision::kFp32),
      exact_);
}

TEST_F(ReferenceAtPrecision, RoundedInputsMoveTheImagesWithinTheirTolerance) {
  for (const cudalabs::ComputePrecision precision :
       {cudalabs::ComputePrecision::kTf32, cudalabs::ComputePrecision::kBf16}) {
    const dcgan::ImageCheck result =
        check(dcgan::reference_generator(weights_, latents_, kCount, precision), precision);
    EXPECT_TRUE(result.passed) << result.message;
    // The rounding is real: more than FP32's own tolerance, less than the precision's.
    EXPECT_GT(result.max_difference, dcgan::kImageTolerance) << result.message;
  }
}

TEST_F(ReferenceAtPrecision, TheBf16ToleranceStillCatchesAMissingTap) {
  // One corner tap of a transposed convolution's filter lost (the kind of index slip a sub-pixel
  // kernel makes; a corner tap moves the images least): with BF16 inputs the images must fail the
  // BF16 tolerance, in the third layer and in the last.
  const cudalabs::ComputePrecision bf16 = cudalabs::ComputePrecision::kBf16;
  const auto& specs = dcgan::generator_tensors();
  for (const std::string layer : {"tconv3.filter", "tconv4.filter"}) {
    dcgan::Weights broken = weights_;
    for (std::size_t t = 0; t < specs.size(); ++t) {
      if (specs[t].name != layer) continue;
      const std::size_t per_tap = broken.tensors[t].size() / 25;  // 5 x 5 x K x C: tap-major
      std::fill_n(broken.tensors[t].begin(), per_tap, 0.0f);      // tap (0, 0)
    }
    const dcgan::ImageCheck result =
        check(dcgan::reference_generator(broken, latents_, kCount, bf16), bf16);
    EXPECT_FALSE(result.passed) << layer << ": " << result.message;
  }
}

// The rounding hooks: a rounding that changes nothing gives the exact images; each hook is called
// once per layer its mask names, with that layer's weight and input (sizes as the model says), and
// the BF16 overload is the hooks with round_to_precision.
TEST_F(ReferenceAtPrecision, InputRoundingHooksSeeEachMaskedLayerOnce) {
  std::vector<int> weight_calls, input_calls;
  dcgan::InputRounding record;
  record.weight = [&](int layer, std::vector<float>& weight) {
    weight_calls.push_back(layer);
    const std::size_t expected =
        layer == 0 ? std::size_t{100} * 8192 : dcgan::generator_layer(layer, 1).filter_elements();
    EXPECT_EQ(weight.size(), expected) << "layer " << layer;
  };
  record.input = [&](int layer, std::vector<double>& input) {
    input_calls.push_back(layer);
    const std::size_t expected = layer == 0
                                     ? std::size_t{100} * kCount
                                     : dcgan::generator_layer(layer, kCount).input_elements();
    EXPECT_EQ(input.size(), expected) << "layer " << layer;
  };
  EXPECT_EQ(dcgan::reference_generator(weights_, latents_, kCount, record, 0x16u), exact_);
  EXPECT_EQ(weight_calls, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(input_calls, (std::vector<int>{1, 2, 4}));

  const cudalabs::ComputePrecision bf16 = cudalabs::ComputePrecision::kBf16;
  dcgan::InputRounding round_bf16;
  round_bf16.weight = [&](int, std::vector<float>& weight) {
    for (float& v : weight) v = cudalabs::round_to_precision(v, bf16);
  };
  round_bf16.input = [&](int, std::vector<double>& input) {
    for (double& v : input) v = cudalabs::round_to_precision(static_cast<float>(v), bf16);
  };
  const std::vector<double> hooked =
      dcgan::reference_generator(weights_, latents_, kCount, round_bf16);
  EXPECT_EQ(hooked, dcgan::reference_generator(weights_, latents_, kCount, bf16));
  EXPECT_NE(hooked, exact_);
}

}  // namespace
