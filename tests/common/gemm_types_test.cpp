#include "common/gemm_types.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cudalabs {
namespace {

std::string rejection(const GemmArgs& args) {
  try {
    validate_gemm_args(args, "test");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "accepted";
}

TEST(GemmShape, LabelAndFlops) {
  const GemmShape shape{3, 5, 7};
  EXPECT_EQ(shape.label(), "3x5x7");
  EXPECT_DOUBLE_EQ(shape.flops(), 2.0 * 3 * 5 * 7);
  EXPECT_DOUBLE_EQ((GemmShape{8192, 8192, 8192}.flops()), 2.0 * 8192.0 * 8192.0 * 8192.0);
}

TEST(ValidateGemmArgs, AcceptsPaddedLeadingDimensions) {
  float x = 0;
  EXPECT_EQ(rejection({2, 3, 4, 1.0f, &x, 9, &x, 5, 0.0f, &x, 3}), "accepted");
}

TEST(ValidateGemmArgs, NamesTheBadArgument) {
  float x = 0;
  const GemmArgs good{2, 3, 4, 1.0f, &x, 4, &x, 3, 0.0f, &x, 3};
  GemmArgs args = good;
  args.m = 0;
  EXPECT_EQ(rejection(args), "test: m = 0 must be >= 1");
  args = good;
  args.k = -3;
  EXPECT_EQ(rejection(args), "test: k = -3 must be >= 1");
  args = good;
  args.lda = 3;
  EXPECT_EQ(rejection(args), "test: lda = 3 is smaller than k = 4");
  args = good;
  args.ldb = 2;
  EXPECT_EQ(rejection(args), "test: ldb = 2 is smaller than n = 3");
  args = good;
  args.ldc = 2;
  EXPECT_EQ(rejection(args), "test: ldc = 2 is smaller than n = 3");
  args = good;
  args.b = nullptr;
  EXPECT_EQ(rejection(args), "test: pointer b is null");
}

TEST(ValidateGemmArgs, RefusesOffsetsBeyondInt) {
  float x = 0;
  const std::string message = rejection({65536, 4, 65536, 1.0f, &x, 65536, &x, 4, 0.0f, &x, 4});
  EXPECT_NE(message.find("matrix A"), std::string::npos) << message;
  EXPECT_THROW(validate_gemm_shape({65536, 65536, 1}, "--m/--n/--k"), std::invalid_argument);
  EXPECT_NO_THROW(validate_gemm_shape({8192, 8192, 8192}, "--m/--n/--k"));
}

TEST(ParseGemmShapes, CubesAndTriples) {
  const std::vector<GemmShape> shapes = parse_gemm_shapes("--shapes", "256,65536x64x3200,1");
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0].label(), "256x256x256");
  EXPECT_EQ(shapes[1].label(), "65536x64x3200");
  EXPECT_EQ(shapes[2].label(), "1x1x1");
}

TEST(ParseGemmShapes, RejectsBadItems) {
  for (const char* bad : {"", "0", "12x3", "axbxc", "4,,5", "1x2x3x4", "2048y", "-5"}) {
    try {
      parse_gemm_shapes("--shapes", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("--shapes: invalid shape"), std::string::npos)
          << error.what();
    }
  }
}

TEST(MatrixSpan, CountsThePaddingOfAllButTheLastRow) {
  EXPECT_EQ(matrix_span(3, 4, 6), 2 * 6 + 4);
  EXPECT_EQ(matrix_span(1, 4, 100), 4);
  EXPECT_THROW(matrix_span(3, 4, 3), std::invalid_argument);
}

}  // namespace
}  // namespace cudalabs
