// The occupancy calculator (common/occupancy) against the CUDA runtime's own answer,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor, for every kernel launch of every declared lab
// (labs/NN_name/lab.json names the lab's launches; common/launch_catalog.h), the solutions'. A
// launch that asks for more than 48 KiB of dynamic shared memory must have opted in
// (cudaFuncAttributeMaxDynamicSharedMemorySize) by the time it is described, as its launch does:
// otherwise the runtime gives it no block, and a report of its occupancy reads zero.
#include "common/cuda_check.h"
#include "common/device_info.h"
#include "common/launch_catalog.h"
#include "common/launch_report.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs {
// How a test's parameter reads in test lists and failures: the lab's folder.
void PrintTo(const DeclaredLab& lab, std::ostream* out) {
  *out << lab.folder;
}
}  // namespace cudalabs

namespace {

constexpr std::size_t kSharedWithoutOptIn = 48 * 1024;

void expect_calculator_matches_api(const std::string& name, const cudalabs::KernelLaunch& launch) {
  const cudalabs::OccupancyLimits limits =
      cudalabs::OccupancyLimits::for_device(cudalabs::current_device_info());
  const cudalabs::LaunchReport report = cudalabs::report_launch(name, launch, limits);
  EXPECT_EQ(report.occupancy.active_blocks, report.api_active_blocks)
      << name << ": " << report.registers_per_thread << " registers, " << report.static_shared
      << " B static shared memory, " << launch.threads_per_block()
      << " threads; calculator limits SM " << report.occupancy.block_limit_sm << ", warps "
      << report.occupancy.block_limit_warps << ", registers "
      << report.occupancy.block_limit_registers << ", shared "
      << report.occupancy.block_limit_shared;
  EXPECT_GT(report.api_active_blocks, 0) << name;
}

// Past 48 KiB, the kernel's limit must allow the launch's dynamic shared memory.
void expect_dynamic_shared_allowed(const std::string& name, const cudalabs::KernelLaunch& launch) {
  if (launch.dynamic_shared_bytes <= kSharedWithoutOptIn) return;
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
  EXPECT_GE(static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes),
            launch.dynamic_shared_bytes)
      << name << ": " << launch.dynamic_shared_bytes
      << " bytes of dynamic shared memory, but the kernel allows "
      << attributes.maxDynamicSharedSizeBytes
      << " (no cudaFuncAttributeMaxDynamicSharedMemorySize before it is described)";
}

// Checks every launch of the labs `wanted` accepts; returns how many were checked, per lab.
template <class Wanted>
std::vector<int> check_labs(Wanted wanted, std::vector<std::string>* skipped) {
  std::vector<int> checked;
  for (const cudalabs::DeclaredLab& lab : cudalabs::declared_labs()) {
    if (lab.describe_launches == nullptr || !wanted(lab)) continue;
    cudalabs::LaunchCatalog catalog;
    lab.describe_launches(catalog);
    int count = 0;
    for (const cudalabs::CatalogedLaunch& entry : catalog.launches()) {
      const std::string name =
          std::string("lab") + lab.number + "/" + entry.variant + "/" + entry.problem;
      const std::string why_not = entry.unavailable ? entry.unavailable() : std::string();
      if (!why_not.empty()) {
        if (skipped) skipped->push_back(name + ": " + why_not);
        continue;
      }
      try {
        const cudalabs::KernelLaunch launch = entry.describe();
        expect_dynamic_shared_allowed(name, launch);
        expect_calculator_matches_api(name, launch);
        ++count;
      } catch (const std::exception& error) {
        ADD_FAILURE() << name << ": its description failed: " << error.what();
      }
    }
    checked.push_back(count);
  }
  return checked;
}

std::vector<int> check_family(std::string_view family) {
  return check_labs([family](const cudalabs::DeclaredLab& lab) { return lab.family == family; },
                    nullptr);
}

TEST(OccupancyCalculator, AgreesWithTheCudaApiForEveryGemmKernel) {
  CUDALABS_REQUIRE_GPU();
  const std::vector<int> checked = check_family("fp32_gemm");
  EXPECT_GE(checked.size(), 7u) << "labs 01-07";
  for (const int count : checked) EXPECT_GT(count, 0);
}

TEST(OccupancyCalculator, AgreesWithTheCudaApiForTheRooflineKernels) {
  CUDALABS_REQUIRE_GPU();
  const std::vector<int> checked = check_family("roofline");
  ASSERT_EQ(checked.size(), 1u) << "lab 00";
  EXPECT_GT(checked[0], 0);
}

TEST(OccupancyCalculator, AgreesWithTheCudaApiForTheCoarsenedConvolutions) {
  CUDALABS_REQUIRE_GPU();
  const std::vector<int> checked = check_family("convolution");
  ASSERT_EQ(checked.size(), 1u) << "lab 08";
  EXPECT_GT(checked[0], 0);
}

// One test per declared lab, so that a new lab is checked, and reported, by its number.
class OccupancyOfEveryLab : public testing::TestWithParam<cudalabs::DeclaredLab> {};

TEST_P(OccupancyOfEveryLab, AgreesWithTheCudaApiAndAllowsItsSharedMemory) {
  const cudalabs::DeclaredLab& lab = GetParam();
  if (lab.describe_launches == nullptr) {
    GTEST_SKIP() << "lab " << lab.number << " declares no kernels of its own";
  }
  CUDALABS_REQUIRE_GPU();
  std::vector<std::string> skipped;
  const std::vector<int> checked = check_labs(
      [&lab](const cudalabs::DeclaredLab& other) {
        return std::string_view(other.number) == lab.number;
      },
      &skipped);
  ASSERT_EQ(checked.size(), 1u);
  for (const std::string& line : skipped) std::printf("skipped %s\n", line.c_str());
  if (checked[0] == 0 && !skipped.empty()) {
    GTEST_SKIP() << "every launch of lab " << lab.number << " is unavailable here: " << skipped[0];
  }
  EXPECT_GT(checked[0], 0) << "lab " << lab.number << "'s catalog describes no launch";
}

INSTANTIATE_TEST_SUITE_P(Declared, OccupancyOfEveryLab,
                         testing::ValuesIn(cudalabs::declared_labs().begin(),
                                           cudalabs::declared_labs().end()),
                         [](const testing::TestParamInfo<cudalabs::DeclaredLab>& info) {
                           return std::string(info.param.folder);
                         });

}  // namespace
