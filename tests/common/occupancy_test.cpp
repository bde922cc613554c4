// The occupancy calculator against hand-worked cases and [SGEMM-3080]'s RTX 3080 table (Nsight
// Compute's Occupancy section for 4x4 ... 32x32 blocks of the shared-memory GEMM).
#include "common/occupancy.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cudalabs {
namespace {

struct SeedRow {
  int edge;
  int block_limit_registers, block_limit_shared, block_limit_warps, block_limit_sm;
  double occupancy_percent;
};

// 004_6f35a0b9ab03ac03.txt, section 2.2: the CC kernel with edge x edge threads and 2 edge^2 floats
// of dynamic shared memory, on an RTX 3080 (compute capability 8.6). Its register count is not
// printed, but the limits pin it: 16x16 blocks held to 6 by registers means 7 would not fit, which
// with 4 sub-partitions and 256-register allocation gives 40 registers per thread.
TEST(Occupancy, ReproducesSgemm3080Rtx3080Table) {
  const OccupancyLimits rtx3080 = OccupancyLimits::for_compute_capability(8, 6);
  const SeedRow rows[] = {{4, 48, 28, 48, 16, 33.33},
                          {8, 24, 21, 24, 16, 66.67},
                          {16, 6, 10, 6, 16, 100.0},
                          {32, 1, 1, 1, 16, 66.67}};
  for (const SeedRow& row : rows) {
    const KernelResources kernel{row.edge * row.edge, 40, 2u * row.edge * row.edge * sizeof(float)};
    // Nsight Compute reports shared memory against the carveout the driver picked for the launch.
    const OccupancyResult r =
        theoretical_occupancy(kernel, rtx3080, choose_carveout(kernel, rtx3080));
    EXPECT_EQ(r.block_limit_registers, row.block_limit_registers) << row.edge << "x" << row.edge;
    EXPECT_EQ(r.block_limit_shared, row.block_limit_shared) << row.edge << "x" << row.edge;
    EXPECT_EQ(r.block_limit_warps, row.block_limit_warps) << row.edge << "x" << row.edge;
    EXPECT_EQ(r.block_limit_sm, row.block_limit_sm) << row.edge << "x" << row.edge;
    EXPECT_NEAR(100.0 * r.occupancy, row.occupancy_percent, 0.01) << row.edge << "x" << row.edge;
  }
}

TEST(Occupancy, ChoosesTheSmallestCarveoutThatKeepsOccupancy) {
  const OccupancyLimits rtx3080 = OccupancyLimits::for_compute_capability(8, 6);
  // 16x16: 6 blocks of 3 KiB (2 KiB + 1 KiB reserved) need 18 KiB: the 32 KiB configuration.
  EXPECT_EQ(choose_carveout({256, 40, 2048}, rtx3080), 32u * 1024);
  // 32x32: 1 block of 9 KiB: 16 KiB.
  EXPECT_EQ(choose_carveout({1024, 40, 8192}, rtx3080), 16u * 1024);
}

TEST(Occupancy, HopperFullOccupancyByHand) {
  const OccupancyLimits h100 = OccupancyLimits::for_compute_capability(9, 0);
  // 256 threads = 8 warps; 32 registers -> 1024 per warp -> 16 warps per sub-partition -> 64 warps.
  const OccupancyResult r = theoretical_occupancy({256, 32, 0}, h100);
  EXPECT_EQ(r.warps_per_block, 8);
  EXPECT_EQ(r.registers_per_warp, 1024);
  EXPECT_EQ(r.block_limit_warps, 8);
  EXPECT_EQ(r.block_limit_registers, 8);
  EXPECT_EQ(r.block_limit_shared, 228);  // 228 KiB / the 1 KiB reserved per block
  EXPECT_EQ(r.active_blocks, 8);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  EXPECT_EQ(r.limiter, "warps, registers");
}

TEST(Occupancy, RegisterLimitedByHand) {
  const OccupancyLimits h100 = OccupancyLimits::for_compute_capability(9, 0);
  // 128 registers -> 4096 per warp -> 4 warps per sub-partition -> 16 warps -> 2 blocks of 8 warps.
  const OccupancyResult r = theoretical_occupancy({256, 128, 0}, h100);
  EXPECT_EQ(r.block_limit_registers, 2);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.25);
  EXPECT_EQ(r.limiter, "registers");
  // 38 registers round up to 40 (1216 -> 1280 per warp): 12 warps per sub-partition.
  EXPECT_EQ(theoretical_occupancy({32, 38, 0}, h100).registers_per_warp, 1280);
  EXPECT_EQ(theoretical_occupancy({32, 38, 0}, h100).block_limit_registers, 48);
}

TEST(Occupancy, SharedMemoryLimitedByHand) {
  const OccupancyLimits h100 = OccupancyLimits::for_compute_capability(9, 0);
  // 100 KiB + 1 KiB reserved per block: 2 blocks in 228 KiB.
  const OccupancyResult r = theoretical_occupancy({256, 32, 100 * 1024}, h100);
  EXPECT_EQ(r.shared_per_block, 101u * 1024);
  EXPECT_EQ(r.block_limit_shared, 2);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.25);
  EXPECT_EQ(r.limiter, "shared memory");
  // Allocation rounds to 128 bytes: 1 byte of shared memory costs 1024 + 128.
  EXPECT_EQ(theoretical_occupancy({256, 32, 1}, h100).shared_per_block, 1152u);
}

TEST(Occupancy, BlockLimitedByHand) {
  const OccupancyLimits h100 = OccupancyLimits::for_compute_capability(9, 0);
  // One-warp blocks: 32 blocks per SM is the cap, 32 of 64 warps.
  const OccupancyResult r = theoretical_occupancy({32, 16, 0}, h100);
  EXPECT_EQ(r.active_blocks, 32);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.5);
  EXPECT_EQ(r.limiter, "blocks per SM");
  // Half-empty warps count as whole warps: 16 threads still take a warp slot.
  EXPECT_DOUBLE_EQ(theoretical_occupancy({16, 16, 0}, h100).occupancy, 0.5);
}

TEST(Occupancy, TuringHasFewerWarpSlots) {
  const OccupancyLimits t4 = OccupancyLimits::for_compute_capability(7, 5);
  const OccupancyResult r = theoretical_occupancy({1024, 32, 0}, t4);
  EXPECT_EQ(r.block_limit_warps, 1);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
}

TEST(Occupancy, RejectsBlocksThatCannotLaunch) {
  const OccupancyLimits h100 = OccupancyLimits::for_compute_capability(9, 0);
  EXPECT_THROW(theoretical_occupancy({1025, 32, 0}, h100), std::invalid_argument);
  EXPECT_THROW(theoretical_occupancy({0, 32, 0}, h100), std::invalid_argument);
  EXPECT_THROW(theoretical_occupancy({256, 256, 0}, h100), std::invalid_argument);
  EXPECT_THROW(theoretical_occupancy({1024, 72, 0}, h100),
               std::invalid_argument);  // 73728 registers
  EXPECT_THROW(theoretical_occupancy({256, 32, 300 * 1024}, h100), std::invalid_argument);
  EXPECT_THROW(OccupancyLimits::for_compute_capability(5, 0), std::invalid_argument);
}

}  // namespace
}  // namespace cudalabs
