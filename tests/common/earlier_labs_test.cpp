#include "common/earlier_labs.h"

#include <gtest/gtest.h>

namespace cudalabs {
namespace {

TEST(EarlierLabsLine, ReferenceKernelsInAStudentBuildSayHowToUseYourOwn) {
  EXPECT_EQ(
      earlier_labs_line({{"09", "solution"}, {"07", "solution"}}, true),
      "built on: the reference kernels of lab 09, lab 07 (your own with EARLIER_LABS=student)");
}

TEST(EarlierLabsLine, TheSolutionBuildNeedsNoHint) {
  EXPECT_EQ(earlier_labs_line({{"07", "solution"}}, false),
            "built on: the reference kernels of lab 07");
}

TEST(EarlierLabsLine, YourOwnKernelsAreNamed) {
  EXPECT_EQ(earlier_labs_line({{"09", "student"}, {"07", "student"}}, true),
            "built on: your own kernels of lab 09, lab 07");
  EXPECT_EQ(earlier_labs_line({}, true), "");
}

}  // namespace
}  // namespace cudalabs
