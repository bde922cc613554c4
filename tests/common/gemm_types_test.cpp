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

TEST(ParseGemmProblems, LayoutsAfterTheShape) {
  const std::vector<GemmProblem> problems = parse_gemm_problems(
      "--shapes", "4096,4095x4097x4099_ld+1,64x32x16_lda+1_ldb+2_ldc+3_off+1,8_ld+0");
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems[0].label(), "4096x4096x4096");
  EXPECT_EQ(problems[1].label(), "4095x4097x4099_ld+1");
  EXPECT_EQ(problems[1].lda(), 4100);
  EXPECT_EQ(problems[1].ldb(), 4098);
  EXPECT_EQ(problems[1].ldc(), 4098);
  const GemmProblem& mixed = problems[2];
  EXPECT_EQ(mixed.label(), "64x32x16_lda+1_ldb+2_ldc+3_off+1");
  EXPECT_EQ(mixed.lda(), 17);
  EXPECT_EQ(mixed.ldb(), 34);
  EXPECT_EQ(mixed.ldc(), 35);
  EXPECT_EQ(mixed.layout.pointer_offset, 1);
  EXPECT_EQ(problems[3].label(), "8x8x8");  // a zero padding is the tight layout
  // The label parses back to the same problem.
  const GemmProblem again = parse_gemm_problems("--shapes", mixed.label()).front();
  EXPECT_EQ(again.label(), mixed.label());
}

TEST(ParseGemmProblems, RejectsBadLayouts) {
  for (const char* bad : {"64_ld", "64_ld+", "64_ld+-1", "64_ld+x", "64_pad+1", "64_", "_ld+1",
                          "64_ld+1_", "64_off+2000", "0_ld+1", "64__ld+1"}) {
    try {
      parse_gemm_problems("--shapes", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()).rfind("--shapes: invalid", 0), 0u) << error.what();
    }
  }
}

TEST(ValidateGemmProblem, CountsThePadding) {
  EXPECT_NO_THROW(validate_gemm_problem({{46340, 46340, 8}, {}}, "--shapes"));
  EXPECT_NO_THROW(validate_gemm_problem({{46340, 46340, 8}, {0, 0, 0, 1024}}, "--shapes"));
  EXPECT_THROW(validate_gemm_problem({{46340, 46340, 8}, {0, 0, 1024, 0}}, "--shapes"),
               std::invalid_argument);
  EXPECT_THROW(validate_gemm_problem({{0, 4, 4}, {}}, "--shapes"), std::invalid_argument);
}

TEST(MatrixSpan, CountsThePaddingOfAllButTheLastRow) {
  EXPECT_EQ(matrix_span(3, 4, 6), 2 * 6 + 4);
  EXPECT_EQ(matrix_span(1, 4, 100), 4);
  EXPECT_THROW(matrix_span(3, 4, 3), std::invalid_argument);
}

}  // namespace
}  // namespace cudalabs
