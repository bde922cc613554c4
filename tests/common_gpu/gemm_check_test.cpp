// The verification harness against planted bugs: it must pass a correct kernel, report a TODO
// kernel as not implemented, and fail each planted mistake with a message that says what went
// wrong.
#include "common/gemm_check.h"
#include "common/random_fill.h"
#include "tests/common_gpu/planted_kernels.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <string>

namespace cudalabs {
namespace {

// The protocol's two paths: the CPU's reference of every element (small problems), and inputs drawn
// on the GPU with C compared there against cuBLAS and with the CPU's samples (large problems; on a
// small shape too when the limit says so). Every planted mistake is caught on both.
const GemmCheckOptions kHostPath{};
const GemmCheckOptions kDevicePath{0, 1024};

GemmCheckReport check(GemmLauncher launch, const GemmCase& gemm_case,
                      GemmCheckOptions options = kHostPath) {
  GemmVerifier verifier(gemm_case, derive_seed(run_seed(), gemm_case.label()), options);
  return verifier.check(launch);
}

const GemmCase kOdd{{37, 29, 71}, 1.5f, -0.5f, {1, 2, 3}};
const GemmCase kLarge{{2048, 1031, 2051}, 1.0f, 0.5f};  // sampled CPU + cuBLAS path
const GemmCheckOptions kPaths[] = {kHostPath, kDevicePath};

std::string path_name(const GemmCheckOptions& options) {
  return options.full_reference_limit == 0 ? " (on the GPU)" : " (on the CPU)";
}

TEST(GemmVerifier, PassesACorrectKernel) {
  CUDALABS_REQUIRE_GPU();
  for (const GemmCheckOptions& path : kPaths) {
    for (const GemmCase& gemm_case : {kOdd, GemmCase{{1, 1, 1}, 1.0f, 0.0f}, kLarge}) {
      const GemmCheckReport report = check(&planted::correct, gemm_case, path);
      EXPECT_EQ(report.outcome, CheckOutcome::kPassed)
          << gemm_case.label() << path_name(path) << ": " << report.message;
    }
  }
}

TEST(GemmVerifier, ReportsATodoKernelAsNotImplemented) {
  CUDALABS_REQUIRE_GPU();
  for (const GemmCheckOptions& path : kPaths) {
    const GemmCheckReport report = check(&planted::writes_nothing, kOdd, path);
    EXPECT_EQ(report.outcome, CheckOutcome::kNotImplemented) << path_name(path);
    EXPECT_EQ(report.message, "never written: not implemented yet") << path_name(path);
  }
}

TEST(GemmVerifier, FailsAMissingRow) {
  CUDALABS_REQUIRE_GPU();
  for (const GemmCheckOptions& path : kPaths) {
    const GemmCheckReport report = check(&planted::skips_last_row, kOdd, path);
    EXPECT_EQ(report.outcome, CheckOutcome::kFailed) << path_name(path);
    EXPECT_EQ(report.write_check.unwritten, kOdd.shape.n) << path_name(path);
    EXPECT_EQ(report.write_check.first_unwritten_row, kOdd.shape.m - 1) << path_name(path);
    EXPECT_EQ(report.write_check.first_unwritten_col, 0) << path_name(path);
    EXPECT_NE(report.message.find("never written"), std::string::npos) << report.message;
  }
}

TEST(GemmVerifier, FailsAMissingPartialTile) {
  CUDALABS_REQUIRE_GPU();
  for (const GemmCheckOptions& path : kPaths) {
    for (const GemmCase& gemm_case : {kOdd, kLarge}) {
      const GemmCheckReport report = check(&planted::skips_last_k_tile, gemm_case, path);
      EXPECT_EQ(report.outcome, CheckOutcome::kFailed) << gemm_case.label() << path_name(path);
    }
  }
}

TEST(GemmVerifier, FailsWritesIntoPadding) {
  CUDALABS_REQUIRE_GPU();
  for (const GemmCheckOptions& path : kPaths) {
    const GemmCheckReport report = check(&planted::writes_padding, kOdd, path);
    EXPECT_EQ(report.outcome, CheckOutcome::kFailed) << path_name(path);
    EXPECT_EQ(report.padding_changes, kOdd.shape.m) << path_name(path);
    EXPECT_NE(report.message.find("padding"), std::string::npos) << report.message;
  }
}

TEST(GemmVerifier, FailsReadingCWhenBetaIsZero) {
  CUDALABS_REQUIRE_GPU();
  for (const GemmCheckOptions& path : kPaths) {
    const GemmCheckReport report = check(&planted::reads_c_when_beta_zero, kOdd, path);
    EXPECT_EQ(report.outcome, CheckOutcome::kFailed) << path_name(path);
    EXPECT_GT(report.write_check.checked, 0) << path_name(path);
    EXPECT_EQ(report.write_check.non_finite, report.write_check.checked) << path_name(path);
    EXPECT_NE(report.message.find("C read although beta = 0"), std::string::npos) << report.message;
  }
}

TEST(GemmVerifier, LocatesOneWrongElement) {
  CUDALABS_REQUIRE_GPU();
  for (const GemmCheckOptions& path : kPaths) {
    for (const GemmCase& gemm_case : {kOdd, kLarge}) {
      const GemmCheckReport report = check(&planted::one_wrong_element, gemm_case, path);
      EXPECT_EQ(report.outcome, CheckOutcome::kFailed) << gemm_case.label() << path_name(path);
      EXPECT_EQ(report.write_check.worst_row, gemm_case.shape.m / 2)
          << gemm_case.label() << path_name(path);
      EXPECT_EQ(report.write_check.worst_col, gemm_case.shape.n / 2)
          << gemm_case.label() << path_name(path);
    }
  }
}

TEST(GemmVerifier, TurnsLauncherErrorsIntoFailures) {
  CUDALABS_REQUIRE_GPU();
  const GemmCheckReport report =
      check([](const GemmArgs&, cudaStream_t) { throw std::invalid_argument("refused"); }, kOdd);
  EXPECT_EQ(report.outcome, CheckOutcome::kFailed);
  EXPECT_EQ(report.message, "error: refused");
}

}  // namespace
}  // namespace cudalabs
