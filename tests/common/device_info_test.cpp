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

}  // namespace
}  // namespace cudalabs
