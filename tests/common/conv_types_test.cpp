// The convolution's shape: derived sizes, names, and validation messages that name the field.
#include "common/conv_types.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using cudalabs::ConvShape;

std::string rejection(const ConvShape& shape) {
  try {
    cudalabs::validate_conv_shape(shape, "test");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "accepted";
}

TEST(ConvShape, DerivedSizesOfSeedCaseOne) {
  const ConvShape shape{1024, 31, 31, 5, 2, 3, 3};
  EXPECT_EQ(shape.p(), 29);
  EXPECT_EQ(shape.q(), 29);
  EXPECT_EQ(shape.input_elements(), 1024LL * 5 * 31 * 31);
  EXPECT_EQ(shape.filter_elements(), 2 * 5 * 3 * 3);
  EXPECT_EQ(shape.output_elements(), 1024LL * 2 * 29 * 29);
  EXPECT_EQ(shape.reduction_length(), 45);
  EXPECT_DOUBLE_EQ(shape.flops(), 2.0 * 1024 * 2 * 29 * 29 * 45);
  EXPECT_EQ(shape.label(), "1024x31x31x5_f2x3x3");
}

TEST(ConvShape, ValidationNamesTheFieldAndValue) {
  EXPECT_EQ(rejection({1, 5, 5, 1, 1, 3, 3}), "accepted");
  EXPECT_EQ(rejection({1, 3, 3, 1, 1, 3, 3}), "accepted");  // one output
  EXPECT_EQ(rejection({0, 5, 5, 1, 1, 3, 3}), "test: n = 0 must be >= 1");
  EXPECT_EQ(rejection({1, 5, 5, -2, 1, 3, 3}), "test: c = -2 must be >= 1");
  EXPECT_EQ(rejection({1, 5, 5, 1, 0, 3, 3}), "test: f = 0 must be >= 1");
  EXPECT_EQ(rejection({1, 3, 5, 1, 1, 4, 3}), "test: r = 4 is taller than the image (h = 3)");
  EXPECT_EQ(rejection({1, 5, 2, 1, 1, 3, 3}), "test: s = 3 is wider than the image (w = 2)");
  EXPECT_NE(rejection({100000, 100, 100, 3, 1, 1, 1}).find("more than a 32-bit index reaches"),
            std::string::npos);
}

TEST(ConvShape, ArgumentsNeedPointers) {
  float dummy = 0.0f;
  const ConvShape shape{1, 3, 3, 1, 1, 1, 1};
  EXPECT_THROW(cudalabs::validate_conv_args({shape, nullptr, &dummy, &dummy}, "t"),
               std::invalid_argument);
  EXPECT_THROW(cudalabs::validate_conv_args({shape, &dummy, nullptr, &dummy}, "t"),
               std::invalid_argument);
  EXPECT_THROW(cudalabs::validate_conv_args({shape, &dummy, &dummy, nullptr}, "t"),
               std::invalid_argument);
  EXPECT_NO_THROW(cudalabs::validate_conv_args({shape, &dummy, &dummy, &dummy}, "t"));
}

}  // namespace
