#include "common/device_info.h"

#include <gtest/gtest.h>

namespace cudalabs {
namespace {

TEST(DeviceSlug, LowerCaseWithSingleDashes) {
  EXPECT_EQ(device_slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(device_slug("  Tesla V100-SXM2-16GB "), "tesla-v100-sxm2-16gb");
  EXPECT_EQ(device_slug("NVIDIA GeForce RTX 3080"), "nvidia-geforce-rtx-3080");
}

TEST(VersionText, SplitsMajorAndMinor) {
  EXPECT_EQ(DeviceInfo::version_text(13000), "13.0");
  EXPECT_EQ(DeviceInfo::version_text(12040), "12.4");
}

TEST(Fp32Lanes, KnownArchitectures) {
  EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(3, 5), 0);
}

TEST(HalveUntilFits, KeepsASizeThatFits) {
  const auto bytes = [](long long n) { return static_cast<std::size_t>(n) * 4; };
  EXPECT_EQ(halve_until_fits(1 << 20, 1024, std::size_t{80} << 30, bytes), 1 << 20);
}

TEST(HalveUntilFits, HalvesUntilNineTenthsOfTheFreeMemoryHoldIt) {
  // 4 bytes a unit, 1000 bytes free: 900 usable, so 1024 -> 512 -> 256 -> 128 (512 bytes).
  const auto bytes = [](long long n) { return static_cast<std::size_t>(n) * 4; };
  EXPECT_EQ(halve_until_fits(1024, 1, 1000, bytes), 128);
  // 225 units is exactly 900 bytes: it fits; 226 does not, and halves to 113.
  EXPECT_EQ(halve_until_fits(225, 1, 1000, bytes), 225);
  EXPECT_EQ(halve_until_fits(226, 1, 1000, bytes), 113);
}

TEST(HalveUntilFits, StopsAtTheSmallestSizeEvenWhenThatDoesNotFit) {
  const auto bytes = [](long long n) { return static_cast<std::size_t>(n) * n; };
  EXPECT_EQ(halve_until_fits(4096, 1000, 1000, bytes), 1024);
  EXPECT_EQ(halve_until_fits(4096, 4096, 1000, bytes), 4096);
}

TEST(HalveUntilFits, FollowsACostThatGrowsFasterThanTheSize) {
  // Attention's scores grow with the square of the sequence: 4096 -> 2048 quarters the bytes.
  const auto bytes = [](long long s) { return static_cast<std::size_t>(s) * s * 10; };
  EXPECT_EQ(halve_until_fits(4096, 256, std::size_t{50} << 20, bytes), 2048);
}

}  // namespace
}  // namespace cudalabs
