// The occupancy calculator (common/occupancy) against the CUDA runtime's own answer,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor, for every kernel of the labs' solutions.
#include "common/device_info.h"
#include "common/launch_report.h"
#include "labs/00_roofline/lab.h"
#include "labs/01_naive_gemm/lab.h"
#include "labs/02_smem_tiling/lab.h"
#include "labs/03_transposed_layouts/lab.h"
#include "labs/04_block_size/lab.h"
#include "labs/05_register_tiling/lab.h"
#include "labs/06_double_buffering/lab.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/08_coarsening/lab.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

namespace {

using cudalabs::GemmVariant;

struct LabVariants {
  const char* lab;
  std::span<const GemmVariant> variants;
};

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

TEST(OccupancyCalculator, AgreesWithTheCudaApiForEveryGemmKernel) {
  CUDALABS_REQUIRE_GPU();
  const LabVariants labs[] = {{"lab01", lab01::variants()}, {"lab02", lab02::variants()},
                              {"lab03", lab03::variants()}, {"lab04", lab04::variants()},
                              {"lab05", lab05::variants()}, {"lab06", lab06::variants()},
                              {"lab07", lab07::variants()}};
  int checked = 0;
  for (const LabVariants& lab : labs) {
    for (const GemmVariant& variant : lab.variants) {
      for (const cudalabs::GemmShape shape :
           {cudalabs::GemmShape{4096, 4096, 4096}, cudalabs::GemmShape{17, 33, 65}}) {
        expect_calculator_matches_api(std::string(lab.lab) + "/" + variant.name,
                                      variant.describe(shape));
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 2 * (2 + 3 + 4 + 4 + 2 + 2 + 7));
}

TEST(OccupancyCalculator, AgreesWithTheCudaApiForTheRooflineKernels) {
  CUDALABS_REQUIRE_GPU();
  expect_calculator_matches_api("lab00/copy", lab00::describe_copy(1 << 20));
  expect_calculator_matches_api("lab00/fma", lab00::describe_fma(1 << 20));
}

TEST(OccupancyCalculator, AgreesWithTheCudaApiForTheCoarsenedConvolutions) {
  CUDALABS_REQUIRE_GPU();
  int checked = 0;
  for (const lab08::ConvVariant& variant : lab08::variants()) {
    for (const lab08::SeedCase& seed_case : lab08::kSeedCases) {
      expect_calculator_matches_api(std::string("lab08/") + variant.name + "/" + seed_case.name,
                                    variant.describe(seed_case.shape));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 12);
}

}  // namespace
