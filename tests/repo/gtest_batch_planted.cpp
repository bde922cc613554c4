// A GoogleTest program planted for tests/repo/test_gtest_batch.py: a test that passes, one that
// skips, one that fails, parameterized names, and (with CUDALABS_PLANT_CRASH set) one that crashes.
#include <gtest/gtest.h>

#include <cstdlib>

TEST(Planted, Passes) {
  EXPECT_EQ(2 + 2, 4);
}
TEST(Planted, Skips) {
  GTEST_SKIP() << "no CUDA GPU available (planted)";
}
TEST(Planted, Fails) {
  EXPECT_EQ(2 + 2, 5) << "planted failure";
}
TEST(Planted, CrashesWhenAsked) {
  if (std::getenv("CUDALABS_PLANT_CRASH")) std::abort();
}

class Sizes : public ::testing::TestWithParam<int> {};
TEST_P(Sizes, Positive) {
  EXPECT_GT(GetParam(), 0);
}
INSTANTIATE_TEST_SUITE_P(Few, Sizes, ::testing::Values(1, 2));
