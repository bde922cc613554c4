#include "tests/support/gemm_grading.h"

#include "common/random_fill.h"
#include "tests/support/expect_rejected.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>

namespace cudalabs::testing {

const std::vector<GradingCase>& gemm_grading_cases() {
  static const std::vector<GradingCase> cases = {
      {"one_element_1x1x1", {{1, 1, 1}, 1.0f, 0.0f}},
      {"odd_17x33x65", {{17, 33, 65}, 1.5f, -0.5f}},
      {"odd_1000x999x1001", {{1000, 999, 1001}, 1.0f, 1.0f}},
      {"square_64", {{64, 64, 64}, -1.0f, 0.25f}},
      {"square_256", {{256, 256, 256}, 1.0f, 0.0f}},
      {"rect_128x256x64", {{128, 256, 64}, 0.5f, 2.0f}},
      {"rect_96x40x300", {{96, 40, 300}, 1.0f, 0.5f}},
      {"tall_1000x1x257", {{1000, 1, 257}, 2.0f, 0.0f}},
      {"wide_1x1030x33", {{1, 1030, 33}, 1.0f, -1.0f}},
      {"k_one_70x50x1", {{70, 50, 1}, 1.0f, 0.5f}},
      {"alpha_zero_33x17x9", {{33, 17, 9}, 0.0f, 1.5f}},
      {"padded_ld_70x50x90", {{70, 50, 90}, 1.0f, 0.5f, {3, 5, 7}}},
      {"padded_ld4_128x128x128", {{128, 128, 128}, 1.0f, 0.5f, {4, 4, 4}}},
      {"misaligned_131x67x69", {{131, 67, 69}, 1.0f, 0.5f, {1, 1, 1, 1}}},
      {"misaligned_ld4_256x256x64", {{256, 256, 64}, 1.0f, -0.5f, {4, 4, 4, 3}}},
      {"ldc_misaligned_200x136x72", {{200, 136, 72}, 1.0f, 0.5f, {0, 0, 1}}},
      {"ld_mod4_2_130x66x70", {{130, 66, 70}, 1.0f, 0.5f, {2, 2, 2, 2}}},
      {"large_k_64x64x5000", {{64, 64, 5000}, 1.0f, 0.5f}},
      {"large_k_odd_33x65x4099", {{33, 65, 4099}, -1.0f, 0.25f, {1, 3, 2, 1}}},
      {"large_2048", {{2048, 2048, 2048}, 1.0f, 0.5f}},
      {"large_odd_1537x1031x2051", {{1537, 1031, 2051}, -0.75f, 0.0f}},
  };
  return cases;
}

namespace {

template <class Input>
class GemmGradingTest : public ::testing::Test {
 public:
  GemmGradingTest(const GemmVariantOf<Input>* variant, GradingCase grading_case, bool student_build)
      : variant_(variant), case_(std::move(grading_case)), student_build_(student_build) {}

  void TestBody() override {
    CUDALABS_REQUIRE_GPU();
    if (const std::string why = unavailable_reason(*variant_); !why.empty())
      GTEST_SKIP() << variant_->name << ": " << why;
    const std::uint64_t seed =
        derive_seed(run_seed(), std::string(variant_->name) + "/" + case_.name);
    RecordProperty("seed", std::to_string(seed));
    BasicGemmVerifier<Input> verifier(case_.gemm, seed);
    const GemmCheckReport report = verifier.check(variant_->launch);
    const std::string context = std::string(variant_->name) + " on " + case_.gemm.label() +
                                " (CUDALABS_SEED=" + std::to_string(run_seed()) + ", " +
                                verifier.reference_description() + ")";
    if (report.outcome == CheckOutcome::kNotImplemented) {
      if (student_build_) GTEST_SKIP() << variant_->name << ": not implemented yet";
      FAIL() << context << ": the solution writes nothing";
    }
    EXPECT_EQ(report.outcome, CheckOutcome::kPassed) << context << ": " << report.message;
  }

 private:
  const GemmVariantOf<Input>* variant_;
  GradingCase case_;
  bool student_build_;
};

// Every launcher refuses bad arguments with std::invalid_argument naming the argument, before any
// launch: this needs no GPU.
template <class Input>
class GemmArgumentTest : public ::testing::Test {
 public:
  explicit GemmArgumentTest(const GemmVariantOf<Input>* variant) : variant_(variant) {}

  void TestBody() override {
    Input inputs[16] = {};
    float dummy[16] = {};
    const GemmArgsOf<Input> good{2, 3, 4, 1.0f, inputs, 4, inputs, 3, 0.0f, dummy, 3};
    auto expect_rejected = [&](GemmArgsOf<Input> args, const std::string& needle) {
      cudalabs::testing::expect_rejected(
          variant_->name, [&] { variant_->launch(args, nullptr); }, needle);
    };
    GemmArgsOf<Input> args = good;
    args.m = 0;
    expect_rejected(args, "m = 0");
    args = good;
    args.n = -2;
    expect_rejected(args, "n = -2");
    args = good;
    args.k = 0;
    expect_rejected(args, "k = 0");
    args = good;
    args.lda = 3;
    expect_rejected(args, "lda = 3");
    args = good;
    args.ldb = 2;
    expect_rejected(args, "ldb = 2");
    args = good;
    args.ldc = 1;
    expect_rejected(args, "ldc = 1");
    args = good;
    args.a = nullptr;
    expect_rejected(args, "pointer a");
    args = good;
    args.c = nullptr;
    expect_rejected(args, "pointer c");
  }

 private:
  const GemmVariantOf<Input>* variant_;
};

}  // namespace

template <class Input>
bool register_gemm_grading_tests(std::span<const GemmVariantOf<Input>> variants,
                                 const std::string& build,
                                 const std::vector<GradingCase>& extra_cases) {
  const bool student_build = build == "student";
  std::vector<GradingCase> cases = gemm_grading_cases();
  cases.insert(cases.end(), extra_cases.begin(), extra_cases.end());
  for (const GemmVariantOf<Input>& variant : variants) {
    const std::string suite = std::string("Grading.") + variant.name;
    for (const GradingCase& grading_case : cases) {
      ::testing::RegisterTest(suite.c_str(), grading_case.name.c_str(), nullptr, nullptr, __FILE__,
                              __LINE__,
                              [v = &variant, grading_case, student_build]() -> ::testing::Test* {
                                return new GemmGradingTest<Input>(v, grading_case, student_build);
                              });
    }
    ::testing::RegisterTest(
        suite.c_str(), "rejects_bad_arguments", nullptr, nullptr, __FILE__, __LINE__,
        [v = &variant]() -> ::testing::Test* { return new GemmArgumentTest<Input>(v); });
  }
  return true;
}

template bool register_gemm_grading_tests(std::span<const GemmVariant>, const std::string&,
                                          const std::vector<GradingCase>&);
template bool register_gemm_grading_tests(std::span<const GemmVariantOf<__nv_bfloat16>>,
                                          const std::string&, const std::vector<GradingCase>&);
template bool register_gemm_grading_tests(std::span<const GemmVariantOf<__half>>,
                                          const std::string&, const std::vector<GradingCase>&);

}  // namespace cudalabs::testing
