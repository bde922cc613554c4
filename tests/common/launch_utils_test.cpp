#include "common/launch_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cudalabs {
namespace {

TEST(CeilDiv, RoundsUp) {
  EXPECT_EQ(ceil_div(1, 32), 1);
  EXPECT_EQ(ceil_div(32, 32), 1);
  EXPECT_EQ(ceil_div(33, 32), 2);
  static_assert(ceil_div(1000, 16) == 63);
}

TEST(CheckedGrid, AcceptsLimitsAndRejectsBeyond) {
  const dim3 grid = checked_grid(2147483647LL, 65535, 1, "t");
  EXPECT_EQ(grid.x, 2147483647u);
  EXPECT_EQ(grid.y, 65535u);
  EXPECT_THROW(checked_grid(1, 65536, 1, "t"), std::invalid_argument);
  EXPECT_THROW(checked_grid(0, 1, 1, "t"), std::invalid_argument);
  try {
    checked_grid(1, 70000, 1, "lab01");
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("grid.y = 70000"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace cudalabs
