// cuBLAS as a row-major reference: checked against the CPU on odd and padded shapes.
#include "common/cublas_gemm.h"
#include "common/device_buffer.h"
#include "common/gemm_compare.h"
#include "common/random_fill.h"
#include "common/reference_gemm.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

namespace cudalabs {
namespace {

struct Case {
  int m, n, k, pad;
  float alpha, beta;
};

class CublasRowMajor : public ::testing::TestWithParam<Case> {};

TEST_P(CublasRowMajor, MatchesTheCpuReference) {
  CUDALABS_REQUIRE_GPU();
  const Case c = GetParam();
  const int lda = c.k + c.pad, ldb = c.n + c.pad, ldc = c.n + c.pad;
  std::vector<float> a(static_cast<std::size_t>(c.m) * lda), b(static_cast<std::size_t>(c.k) * ldb),
      c0(static_cast<std::size_t>(c.m) * ldc);
  const std::uint64_t seed = derive_seed(run_seed(), "cublas " + std::to_string(c.m));
  fill_uniform(a, seed);
  fill_uniform(b, seed + 1);
  fill_uniform(c0, seed + 2);
  DeviceBuffer<float> da{std::span<const float>(a)}, db{std::span<const float>(b)},
      dc{std::span<const float>(c0)};
  CublasHandle handle;
  cublas_gemm_row_major(
      handle, {c.m, c.n, c.k, c.alpha, da.data(), lda, db.data(), ldb, c.beta, dc.data(), ldc});
  CUDA_CHECK(cudaDeviceSynchronize());
  const ReferenceValues ref =
      reference_gemm({{c.m, c.n, c.k}, c.alpha, c.beta, a, lda, b, ldb, c0, ldc});
  const GemmComparison result = compare_gemm(dc.to_host(), ldc, ref, c.k);
  EXPECT_TRUE(result.passed()) << result.describe();
}

INSTANTIATE_TEST_SUITE_P(Shapes, CublasRowMajor,
                         ::testing::Values(Case{1, 1, 1, 0, 1.0f, 0.0f},
                                           Case{17, 33, 65, 0, 1.5f, -0.5f},
                                           Case{100, 7, 300, 3, 1.0f, 1.0f},
                                           Case{256, 128, 64, 0, -2.0f, 0.5f}));

TEST(CublasRowMajor, RejectsBadArguments) {
  float x = 0;
  CUDALABS_REQUIRE_GPU();  // creating the handle needs a GPU
  CublasHandle handle;
  EXPECT_THROW(cublas_gemm_row_major(handle, {0, 1, 1, 1.0f, &x, 1, &x, 1, 0.0f, &x, 1}),
               std::invalid_argument);
}

}  // namespace
}  // namespace cudalabs
