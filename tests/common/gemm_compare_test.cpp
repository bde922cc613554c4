// The comparison: a correct float32 GEMM passes with margin whatever its summation order; NaNs,
// a missing term, a wrong element and a wrong edge are caught and located.
#include "common/gemm_compare.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace cudalabs {
namespace {

struct Problem {
  GemmShape shape;
  std::vector<float> a, b, c;
  ReferenceValues reference;
};

Problem make_problem(int m, int n, int k, float alpha, float beta, std::uint64_t seed) {
  Problem p{{m, n, k},
            std::vector<float>(static_cast<std::size_t>(m) * k),
            std::vector<float>(static_cast<std::size_t>(k) * n),
            std::vector<float>(static_cast<std::size_t>(m) * n),
            {}};
  fill_uniform(p.a, seed);
  fill_uniform(p.b, seed + 1);
  fill_uniform(p.c, seed + 2);
  p.reference = reference_gemm({p.shape, alpha, beta, p.a, k, p.b, n, p.c, n});
  return p;
}

// A float32 GEMM the way a naive kernel computes it: one sequential float accumulator per element.
// `skip_term` drops one term of the reduction, as an off-by-one loop bound would.
std::vector<float> float32_gemm(const Problem& p, float alpha, float beta, int skip_term = -1,
                                bool reverse = false) {
  const int m = p.shape.m, n = p.shape.n, k = p.shape.k;
  std::vector<float> out(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int q = 0; q < k; ++q) {
        const int term = reverse ? k - 1 - q : q;
        if (term != skip_term) acc = std::fma(p.a[i * k + term], p.b[term * n + j], acc);
      }
      out[i * n + j] = beta == 0.0f ? alpha * acc : std::fma(beta, p.c[i * n + j], alpha * acc);
    }
  return out;
}

TEST(Float32Gamma, MatchesDefinition) {
  const double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(float32_gamma(1), u / (1 - u));
  EXPECT_DOUBLE_EQ(float32_gamma(1000), 1000 * u / (1 - 1000 * u));
  EXPECT_TRUE(std::isinf(float32_gamma(1 << 24)));
}

TEST(CompareGemm, Float32SequentialSumPassesWithMargin) {
  for (const int k : {1, 7, 256, 4096}) {
    const Problem p = make_problem(16, 24, k, 1.0f, 0.0f, 100 + k);
    for (const bool reverse : {false, true}) {
      const GemmComparison result =
          compare_gemm(float32_gemm(p, 1.0f, 0.0f, -1, reverse), 24, p.reference, k);
      EXPECT_TRUE(result.passed()) << "k = " << k << ": " << result.describe();
      // Typical float32 errors sit well inside both bounds: room for any summation order.
      EXPECT_LT(result.worst_ratio, 0.5) << "k = " << k;
      EXPECT_LT(result.relative_l2, 0.5 * result.relative_l2_bound) << "k = " << k;
    }
  }
}

TEST(CompareGemm, AlphaBetaPasses) {
  const Problem p = make_problem(9, 13, 300, 1.5f, -0.75f, 7);
  const GemmComparison result = compare_gemm(float32_gemm(p, 1.5f, -0.75f), 13, p.reference, 300);
  EXPECT_TRUE(result.passed()) << result.describe();
  EXPECT_NE(result.describe().find("PASS"), std::string::npos);
}

TEST(CompareGemm, MissingTermIsCaught) {
  for (const int k : {64, 1024, 4096}) {
    const Problem p = make_problem(16, 16, k, 1.0f, 0.0f, 200 + k);
    const GemmComparison result =
        compare_gemm(float32_gemm(p, 1.0f, 0.0f, k - 1), 16, p.reference, k);
    EXPECT_FALSE(result.passed()) << "k = " << k << ": dropping the last term went unnoticed";
    EXPECT_GT(result.relative_l2, result.relative_l2_bound);
  }
}

TEST(CompareGemm, SingleWrongElementIsLocated) {
  const Problem p = make_problem(20, 30, 50, 1.0f, 0.0f, 9);
  std::vector<float> c = float32_gemm(p, 1.0f, 0.0f);
  c[13 * 30 + 29] += 0.01f;
  const GemmComparison result = compare_gemm(c, 30, p.reference, 50);
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.over_bound, 1);
  EXPECT_EQ(result.worst_row, 13);
  EXPECT_EQ(result.worst_col, 29);
  EXPECT_NE(result.describe().find("(13, 29)"), std::string::npos) << result.describe();
}

TEST(CompareGemm, UnwrittenElementsAreCountedAndLocated) {
  const Problem p = make_problem(5, 6, 7, 1.0f, 0.0f, 11);
  std::vector<float> c = float32_gemm(p, 1.0f, 0.0f);
  const float poison = poisoned_host(1)[0];
  for (int j = 0; j < 6; ++j) c[4 * 6 + j] = poison;  // last row never written
  const GemmComparison result = compare_gemm(c, 6, p.reference, 7);
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.unwritten, 6);
  EXPECT_EQ(result.first_unwritten_row, 4);
  EXPECT_EQ(result.first_unwritten_col, 0);
  EXPECT_FALSE(result.nothing_written());
  EXPECT_NE(result.describe().find("never written"), std::string::npos);
}

TEST(CompareGemm, NothingWrittenMeansNotImplemented) {
  const Problem p = make_problem(3, 4, 5, 1.0f, 0.0f, 12);
  const std::vector<float> c = poisoned_host(12);
  const GemmComparison result = compare_gemm(c, 4, p.reference, 5);
  EXPECT_TRUE(result.nothing_written());
  EXPECT_EQ(result.describe(), "never written: not implemented yet");
}

TEST(CompareGemm, ComputedNaNIsWrittenAndWrong) {
  // A NaN the kernel computed (e.g. 0 * NaN from reading a poisoned C) is not the poison pattern.
  const Problem p = make_problem(3, 4, 5, 1.0f, 0.0f, 17);
  const std::vector<float> c(12, std::numeric_limits<float>::quiet_NaN());
  const GemmComparison result = compare_gemm(c, 4, p.reference, 5);
  EXPECT_FALSE(result.nothing_written());
  EXPECT_EQ(result.unwritten, 0);
  EXPECT_EQ(result.non_finite, 12);
  EXPECT_FALSE(result.passed());
}

TEST(CompareGemm, InfinityFails) {
  const Problem p = make_problem(2, 2, 3, 1.0f, 0.0f, 13);
  std::vector<float> c = float32_gemm(p, 1.0f, 0.0f);
  c[3] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(compare_gemm(c, 2, p.reference, 3).passed());
}

TEST(CompareGemm, HonoursLeadingDimensionAndSamples) {
  const Problem p = make_problem(6, 5, 40, 1.0f, 0.0f, 14);
  const std::vector<float> dense = float32_gemm(p, 1.0f, 0.0f);
  std::vector<float> padded(6 * 8, 1e30f);  // padding holds garbage that must not be read
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) padded[i * 8 + j] = dense[i * 5 + j];
  EXPECT_TRUE(compare_gemm(padded, 8, p.reference, 40).passed());
  const ReferenceValues sampled =
      reference_gemm_at({p.shape, 1.0f, 0.0f, p.a, 40, p.b, 5, p.c, 5}, {0, 7, 29});
  const GemmComparison result = compare_gemm(padded, 8, sampled, 40);
  EXPECT_TRUE(result.passed());
  EXPECT_EQ(result.checked, 3);
}

TEST(CompareGemm, ExactZerosPass) {
  const Problem p = make_problem(3, 3, 3, 0.0f, 0.0f, 15);
  const std::vector<float> zeros(9, 0.0f);
  EXPECT_TRUE(compare_gemm(zeros, 3, p.reference, 3).passed());
}

TEST(CompareGemm, RejectsShortOutput) {
  const Problem p = make_problem(3, 3, 3, 1.0f, 0.0f, 16);
  const std::vector<float> short_c(8);
  EXPECT_THROW(compare_gemm(short_c, 3, p.reference, 3), std::invalid_argument);
}

}  // namespace
}  // namespace cudalabs
