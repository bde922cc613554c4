// The CPU reference GEMM against hand-worked cases and an independent straightforward formulation.
#include "common/reference_gemm.h"
#include "common/random_fill.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace cudalabs {
namespace {

TEST(ReferenceGemm, HandWorkedTwoByTwo) {
  // A = [1 2; 3 4], B = [5 6; 7 8], C = [1 1; 1 1]; A*B = [19 22; 43 50].
  const std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, c = {1, 1, 1, 1};
  const ReferenceValues ref = reference_gemm({{2, 2, 2}, 2.0f, -1.0f, a, 2, b, 2, c, 2});
  ASSERT_TRUE(ref.dense());
  EXPECT_DOUBLE_EQ(ref.value[0], 2 * 19 - 1);
  EXPECT_DOUBLE_EQ(ref.value[1], 2 * 22 - 1);
  EXPECT_DOUBLE_EQ(ref.value[2], 2 * 43 - 1);
  EXPECT_DOUBLE_EQ(ref.value[3], 2 * 50 - 1);
  EXPECT_DOUBLE_EQ(ref.magnitude[0], 2 * 19 + 1);
}

TEST(ReferenceGemm, MagnitudeSumsAbsoluteTerms) {
  // A = [1 -2], B = [3; 4]: A*B = 3 - 8 = -5, |A||B| = 3 + 8 = 11.
  const std::vector<float> a = {1, -2}, b = {3, 4};
  const ReferenceValues ref = reference_gemm({{1, 1, 2}, -1.0f, 0.0f, a, 2, b, 1, {}, 1});
  EXPECT_DOUBLE_EQ(ref.value[0], 5.0);
  EXPECT_DOUBLE_EQ(ref.magnitude[0], 11.0);
}

TEST(ReferenceGemm, BetaZeroIgnoresC) {
  const std::vector<float> a = {2}, b = {3}, c = {std::nanf("")};
  const ReferenceValues ref = reference_gemm({{1, 1, 1}, 1.0f, 0.0f, a, 1, b, 1, c, 1});
  EXPECT_DOUBLE_EQ(ref.value[0], 6.0);
}

// A second formulation: the textbook triple loop in long double, over padded leading dimensions.
std::vector<long double> triple_loop(const HostGemmInputs& in) {
  const GemmShape& s = in.shape;
  std::vector<long double> out(static_cast<std::size_t>(s.m) * s.n);
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.n; ++j) {
      long double sum = 0;
      for (int p = 0; p < s.k; ++p)
        sum += static_cast<long double>(in.a[i * in.lda + p]) * in.b[p * in.ldb + j];
      out[static_cast<std::size_t>(i) * s.n + j] =
          in.alpha * sum +
          (in.beta != 0.0f ? static_cast<long double>(in.beta) * in.c[i * in.ldc + j] : 0.0L);
    }
  return out;
}

struct Shape {
  int m, n, k, pad;
};

class ReferenceGemmShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(ReferenceGemmShapes, MatchesTripleLoopAndSamples) {
  const Shape shape = GetParam();
  const int lda = shape.k + shape.pad, ldb = shape.n + shape.pad, ldc = shape.n + shape.pad;
  std::vector<float> a(static_cast<std::size_t>(shape.m) * lda),
      b(static_cast<std::size_t>(shape.k) * ldb), c(static_cast<std::size_t>(shape.m) * ldc);
  fill_uniform(a, 1);
  fill_uniform(b, 2);
  fill_uniform(c, 3);
  const HostGemmInputs in{{shape.m, shape.n, shape.k}, 1.25f, -0.5f, a, lda, b, ldb, c, ldc};
  const ReferenceValues ref = reference_gemm(in);
  const std::vector<long double> expected = triple_loop(in);
  ASSERT_EQ(ref.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(ref.value[i], static_cast<double>(expected[i]),
                1e-9 * (1 + std::fabs(static_cast<double>(expected[i]))))
        << "element " << i;
    ASSERT_GE(ref.magnitude[i], std::fabs(ref.value[i]) - 1e-9);
  }
  // The sampled path computes the same numbers at the sampled positions.
  const ReferenceValues sampled = reference_gemm_at(in, sample_positions(shape.m, shape.n, 50, 7));
  for (std::size_t s = 0; s < sampled.size(); ++s) {
    const std::size_t dense =
        static_cast<std::size_t>(sampled.row_of(s)) * shape.n + sampled.col_of(s);
    EXPECT_NEAR(sampled.value[s], ref.value[dense], 1e-9 * (1 + std::fabs(ref.value[dense])));
    EXPECT_NEAR(sampled.magnitude[s], ref.magnitude[dense], 1e-9 * (1 + ref.magnitude[dense]));
  }
}

INSTANTIATE_TEST_SUITE_P(OddShapes, ReferenceGemmShapes,
                         ::testing::Values(Shape{1, 1, 1, 0}, Shape{17, 33, 65, 0},
                                           Shape{70, 300, 5, 3}, Shape{65, 257, 130, 1},
                                           Shape{129, 1, 513, 0}, Shape{1, 129, 2, 4}));

TEST(ReferenceGemm, AddScaledCMatchesDirectBeta) {
  std::vector<float> a(12 * 7), b(7 * 9), c(12 * 9);
  fill_uniform(a, 4);
  fill_uniform(b, 5);
  fill_uniform(c, 6);
  const ReferenceValues direct = reference_gemm({{12, 9, 7}, 0.5f, 1.5f, a, 7, b, 9, c, 9});
  const ReferenceValues derived =
      add_scaled_c(reference_gemm({{12, 9, 7}, 0.5f, 0.0f, a, 7, b, 9, c, 9}), 1.5f, c, 9);
  for (std::size_t i = 0; i < direct.size(); ++i) {
    EXPECT_NEAR(derived.value[i], direct.value[i], 1e-12);
    EXPECT_NEAR(derived.magnitude[i], direct.magnitude[i], 1e-12);
  }
}

TEST(ReferenceGemm, RejectsInconsistentInputs) {
  const std::vector<float> small(3);
  EXPECT_THROW(reference_gemm({{2, 2, 2}, 1.0f, 0.0f, small, 2, small, 2, {}, 2}),
               std::invalid_argument);
  EXPECT_THROW(reference_gemm({{0, 2, 2}, 1.0f, 0.0f, small, 2, small, 2, {}, 2}),
               std::invalid_argument);
  const std::vector<float> four(4);
  EXPECT_THROW(reference_gemm({{2, 2, 2}, 1.0f, 0.0f, four, 1, four, 2, {}, 2}),
               std::invalid_argument);
  EXPECT_THROW(reference_gemm_at({{2, 2, 2}, 1.0f, 0.0f, four, 2, four, 2, {}, 2}, {4}),
               std::invalid_argument);
}

TEST(SamplePositions, CoverCornersAndEdgesWithoutDuplicates) {
  const std::vector<std::int64_t> positions = sample_positions(10, 7, 100, 42);
  auto has = [&](int r, int c) {
    return std::find(positions.begin(), positions.end(), static_cast<std::int64_t>(r) * 7 + c) !=
           positions.end();
  };
  EXPECT_TRUE(has(0, 0));
  EXPECT_TRUE(has(9, 6));
  EXPECT_TRUE(has(0, 6));
  EXPECT_TRUE(has(9, 0));
  for (int c = 0; c < 7; ++c) EXPECT_TRUE(has(9, c)) << "last row, column " << c;
  EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end()));
  EXPECT_EQ(std::adjacent_find(positions.begin(), positions.end()), positions.end());
  for (const std::int64_t p : positions) EXPECT_LT(p, 70);
}

}  // namespace
}  // namespace cudalabs
