#include "common/build_report.h"

#include <gtest/gtest.h>

namespace cudalabs {
namespace {

constexpr BuildFeature kCpAsync[] = {{"cp.async", 80, "cp_async", "copies through registers"}};

TEST(BuildReport, NativeCodeSaysNothing) {
  const KernelCode native{90, 90};
  EXPECT_FALSE(native.jit());
  EXPECT_TRUE(build_report_lines(90, native, kCpAsync, {}).empty());
}

TEST(BuildReport, JitFromOlderPtxIsOneLineAndTheMissingFeatureAnother) {
  const KernelCode from_75{75, 90};  // a build for 7.5 alone on an H100
  EXPECT_TRUE(from_75.jit());
  const std::vector<std::string> lines = build_report_lines(90, from_75, kCpAsync, {});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("code: JIT-compiled for this GPU (sm_90) from compute 7.5 PTX", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find("-DCMAKE_CUDA_ARCHITECTURES=90"), std::string::npos);
  EXPECT_EQ(
      lines[1].rfind("missing from this build: cp.async needs code for compute capability 8.0", 0),
      0u)
      << lines[1];
}

TEST(BuildReport, OlderMachineCodeLacksTheFeatureWithoutJit) {
  const KernelCode sm_75{75, 75};  // sm_75 machine code cannot run on 8.6; but on 7.5 itself:
  const std::vector<std::string> lines = build_report_lines(75, sm_75, kCpAsync, {});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(
      lines[0].rfind("not on this GPU: cp.async needs compute capability 8.0; this GPU is 7.5", 0),
      0u)
      << lines[0];
}

TEST(BuildReport, ArchSpecificFeaturesExistOnTheirMajorOnly) {
  EXPECT_FALSE(missing_feature_reason(100, {90, 100}, 90, true).empty());
  EXPECT_TRUE(missing_feature_reason(90, {90, 90}, 90, true).empty());
  EXPECT_FALSE(missing_feature_reason(90, {80, 90}, 90, true).empty());  // JIT from compute 8.0
  EXPECT_TRUE(missing_feature_reason(86, {80, 80}, 80).empty());         // sm_80 code runs on 8.6
}

TEST(BuildReport, FeatureCodeOfItsOwnKernel) {
  const KernelCode lab{90, 90}, feature{75, 90};
  const std::vector<std::string> lines = build_report_lines(90, lab, kCpAsync, {&feature, 1});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("compute 7.5 PTX, JIT-compiled"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace cudalabs
