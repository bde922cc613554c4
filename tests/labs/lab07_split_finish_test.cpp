// Lab 07's `best` where it splits K (split-K and stream-K on the tile kernels, split-K on the
// few-rows kernel) and the launch sums the parts itself (k_slice.cuh, few_rows.cuh): the bits of
// the two-kernel sum a captured graph takes, and of several streams at once, more than keep arrival
// words (tests/support/split_finish_checks.h). The shapes' plans are checked on the CPU first.
#include "labs/07_wide_loads/best_plan.h"
#include "labs/07_wide_loads/lab.h"
#include "tests/support/gpu_test.h"
#include "tests/support/split_finish_checks.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using cudalabs::testing::BestGemm;

// Misaligned split-K on a tile kernel, stream-K, and split-K on the few-rows kernel (M <= 64).
const cudalabs::GemmShape kSplitShapes[] = {{304, 91, 789}, {583, 331, 352}, {21, 544, 5224}};
const BestGemm<float> kBest = &lab07::best_gemm;

TEST(Lab07SplitFinish, TheShapesSplitOnAHopperGpu) {
  for (const cudalabs::GemmShape& shape : kSplitShapes) {
    // As launch_best plans tight operands: the scalar plan, unless copies pay (repack_pays).
    const bool pack_a = shape.k % 4 != 0, pack_b = shape.n % 4 != 0;
    const lab07::BestPlan vector_plan = lab07::plan_best(shape, 132, true);
    lab07::BestPlan plan = vector_plan;
    if (pack_a || pack_b) {
      const lab07::BestPlan scalar_plan = lab07::plan_best(shape, 132, false);
      if (!lab07::repack_pays(scalar_plan, vector_plan, shape, pack_a, pack_b, 132))
        plan = scalar_plan;
    }
    EXPECT_TRUE(plan.splits > 1 || plan.stream_k()) << shape.label() << ": " << plan.describe();
  }
}

TEST(Lab07SplitFinish, CapturedGraphGivesTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  if (const std::string why = cudalabs::testing::best_writes_nothing(kBest, kSplitShapes[0]);
      !why.empty())
    GTEST_SKIP() << why;
  cudalabs::testing::expect_capture_gives_the_same_bits(kBest, std::span(kSplitShapes));
}

TEST(Lab07SplitFinish, StreamsAtOnceGiveTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  if (const std::string why = cudalabs::testing::best_writes_nothing(kBest, kSplitShapes[0]);
      !why.empty())
    GTEST_SKIP() << why;
  cudalabs::testing::expect_streams_give_the_same_bits(kBest, std::span(kSplitShapes), 20);
}

}  // namespace
