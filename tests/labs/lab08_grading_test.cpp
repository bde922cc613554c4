// Lab 08 grading tests: every coarsening factor on [COARSEN-KGP]'s two problems and on odd shapes
// (partial tiles, C = 1, F = 1, 1 x 1 and whole-image filters, chunked channels, shrunk tiles),
// plus bad arguments. A factor that writes nothing is "not implemented yet" in the student build.
#include "common/conv_check.h"
#include "common/random_fill.h"
#include "labs/08_coarsening/lab.h"
#include "tests/support/expect_rejected.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

using cudalabs::ConvShape;

const bool kStudentBuild = std::string(CUDALABS_BUILD_NAME) == "student";

struct ConvCase {
  std::string name;
  ConvShape shape;
};

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases = {
      {"case1", lab08::kSeedCases[0].shape},
      {"case2", lab08::kSeedCases[1].shape},
      {"odd_3x37x70x3_f4x5x4", {3, 37, 70, 3, 4, 5, 4}},  // partial tiles in both directions
      {"single_channel_2x20x19x1_f3x3x3", {2, 20, 19, 1, 3, 3, 3}},  // C = 1
      {"single_filter_2x17x23x4_f1x2x5", {2, 17, 23, 4, 1, 2, 5}},   // F = 1
      {"pointwise_2x9x11x6_f5x1x1", {2, 9, 11, 6, 5, 1, 1}},         // 1 x 1 filters
      {"whole_image_3x7x9x2_f2x7x9", {3, 7, 9, 2, 2, 7, 9}},  // one output per image and filter
      {"one_element_1x1x1x1_f1x1x1", {1, 1, 1, 1, 1, 1, 1}},
      {"many_channels_2x40x40x64_f3x7x7", {2, 40, 40, 64, 3, 7, 7}},  // channels staged in chunks
      {"shrunk_tile_1x110x110x1_f1x70x70",
       {1, 110, 110, 1, 1, 70, 70}},                       // a 70 x 70 filter: 4-row tiles
      {"tall_2x300x5x2_f2x3x2", {2, 300, 5, 2, 2, 3, 2}},  // many tile rows, narrow
  };
  return cases;
}

// One verifier per case, shared by the factors, so the CPU reference is computed once per case.
cudalabs::ConvVerifier& verifier_for(const ConvCase& conv_case) {
  static std::map<std::string, std::unique_ptr<cudalabs::ConvVerifier>> verifiers;
  auto& slot = verifiers[conv_case.name];
  if (!slot) {
    slot = std::make_unique<cudalabs::ConvVerifier>(
        conv_case.shape, cudalabs::derive_seed(cudalabs::run_seed(), "lab08 " + conv_case.name));
  }
  return *slot;
}

class ConvGradingTest : public ::testing::Test {
 public:
  ConvGradingTest(const lab08::ConvVariant* variant, ConvCase conv_case)
      : variant_(variant), case_(std::move(conv_case)) {}

  void TestBody() override {
    CUDALABS_REQUIRE_GPU();
    cudalabs::ConvVerifier& verifier = verifier_for(case_);
    const cudalabs::ConvCheckReport report = verifier.check(variant_->launch);
    const std::string context = std::string(variant_->name) + " on " + case_.shape.label() +
                                " (CUDALABS_SEED=" + std::to_string(cudalabs::run_seed()) + ", " +
                                verifier.reference_description() + ")";
    if (report.outcome == cudalabs::CheckOutcome::kNotImplemented) {
      if (kStudentBuild) GTEST_SKIP() << variant_->name << ": not implemented yet";
      FAIL() << context << ": the solution writes nothing";
    }
    EXPECT_EQ(report.outcome, cudalabs::CheckOutcome::kPassed) << context << ": " << report.message;
  }

 private:
  const lab08::ConvVariant* variant_;
  ConvCase case_;
};

// Refused before any launch, with the argument named: needs no GPU.
class ConvArgumentTest : public ::testing::Test {
 public:
  explicit ConvArgumentTest(const lab08::ConvVariant* variant) : variant_(variant) {}

  void TestBody() override {
    float dummy[4] = {};
    auto expect_rejected = [&](cudalabs::ConvArgs args, const std::string& needle) {
      cudalabs::testing::expect_rejected(
          variant_->name, [&] { variant_->launch(args, nullptr); }, needle);
    };
    const cudalabs::ConvArgs good{{1, 2, 2, 1, 1, 1, 1}, dummy, dummy, dummy};
    cudalabs::ConvArgs args = good;
    args.shape.n = 0;
    expect_rejected(args, "n = 0");
    args = good;
    args.shape.c = -1;
    expect_rejected(args, "c = -1");
    args = good;
    args.shape.r = 3;
    expect_rejected(args, "r = 3 is taller than the image");
    args = good;
    args.input = nullptr;
    expect_rejected(args, "pointer input");
    args = good;
    args.output = nullptr;
    expect_rejected(args, "pointer output");
    args = good;
    args.shape = {1, 200, 200, 1,
                  1, 90,  90};  // the filter alone and its patch overflow shared memory
    expect_rejected(args, "90 x 90 filter needs");
  }

 private:
  const lab08::ConvVariant* variant_;
};

const bool registered = [] {
  for (const lab08::ConvVariant& variant : lab08::variants()) {
    const std::string suite = std::string("Grading.") + variant.name;
    for (const ConvCase& conv_case : conv_cases()) {
      ::testing::RegisterTest(suite.c_str(), conv_case.name.c_str(), nullptr, nullptr, __FILE__,
                              __LINE__, [v = &variant, conv_case]() -> ::testing::Test* {
                                return new ConvGradingTest(v, conv_case);
                              });
    }
    ::testing::RegisterTest(
        suite.c_str(), "rejects_bad_arguments", nullptr, nullptr, __FILE__, __LINE__,
        [v = &variant]() -> ::testing::Test* { return new ConvArgumentTest(v); });
  }
  return true;
}();

}  // namespace
