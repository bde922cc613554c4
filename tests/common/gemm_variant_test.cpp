#include "common/gemm_variant.h"
#include "common/gemm_check.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cudalabs {
namespace {

void no_launch(const GemmArgs&, cudaStream_t) {}
KernelLaunch no_describe(const GemmShape&) {
  return {};
}

constexpr GemmVariant kVariants[] = {
    {"first", "one", &no_launch, &no_describe},
    {"second", "two", &no_launch, &no_describe},
};

TEST(SelectVariants, EmptyMeansAllInOrder) {
  const auto selected = select_variants(kVariants, {});
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_STREQ(selected[0]->name, "first");
  EXPECT_STREQ(selected[1]->name, "second");
}

TEST(SelectVariants, KeepsTheOrderGiven) {
  const auto selected = select_variants(kVariants, {"second", "first"});
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_STREQ(selected[0]->name, "second");
}

TEST(SelectVariants, UnknownNameListsTheKnownOnes) {
  try {
    select_variants(kVariants, {"third"});
    FAIL() << "accepted an unknown variant";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "--variant: unknown variant 'third' (known: first, second)");
  }
}

TEST(KernelLaunch, CountsThreads) {
  KernelLaunch launch;
  launch.block = dim3(32, 8, 2);
  EXPECT_EQ(launch.threads_per_block(), 512);
}

}  // namespace
}  // namespace cudalabs

TEST(OutcomeText, WhatTheDriversPrint) {
  EXPECT_STREQ(cudalabs::outcome_text(cudalabs::CheckOutcome::kPassed), "PASS");
  EXPECT_STREQ(cudalabs::outcome_text(cudalabs::CheckOutcome::kNotImplemented),
               "not implemented yet");
  EXPECT_STREQ(cudalabs::outcome_text(cudalabs::CheckOutcome::kFailed), "FAIL");
}
