#include "common/poison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace cudalabs {
namespace {

TEST(Poison, HostPatternIsNaNWithAllBitsSet) {
  const std::vector<float> poisoned = poisoned_host(3);
  for (const float v : poisoned) {
    EXPECT_TRUE(std::isnan(v));
    EXPECT_TRUE(is_poison(v));
  }
  EXPECT_FALSE(is_poison(std::nanf("")));  // an ordinary NaN is not the poison pattern
  EXPECT_FALSE(is_poison(0.0f));
}

TEST(CountPaddingChanges, SeesOnlyThePadding) {
  // 2 x 3 matrix with leading dimension 5: columns 3 and 4 of each row are padding.
  const std::vector<float> before(10, 1.0f);
  std::vector<float> after = before;
  after[0] = 2.0f;  // inside: allowed
  after[4] = 2.0f;  // row 0, column 4: padding
  after[8] = 2.0f;  // row 1, column 3: padding
  EXPECT_EQ(count_padding_changes(before, after, 2, 3, 5), 2);
  EXPECT_EQ(count_padding_changes(before, before, 2, 3, 5), 0);
  EXPECT_THROW(count_padding_changes(before, std::vector<float>(9), 2, 3, 5),
               std::invalid_argument);
}

}  // namespace
}  // namespace cudalabs
