// Lab 11's `best` where it splits K and the launch sums the slices itself (unit_finish.cuh): the
// bits of the two-kernel sum a captured graph takes, and of several streams at once, more than keep
// arrival words (tests/support/split_finish_checks.h).
#include "common/gemm_variant.h"
#include "labs/11_tensor_cores/lab.h"
#include "tests/support/gpu_test.h"
#include "tests/support/split_finish_checks.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using cudalabs::testing::BestGemm;

// Shapes `best` splits on an H100 or H200 (K too long for the short-K kernel's slices to pay): C
// of a few tiles, B's rows 16-byte aligned and not, beta 0 and not; and tiles of a round and part
// of others, whose whole rounds keep K whole (the tail split: captured, those tiles are stored into
// C by the launch and left by the summing kernel).
const cudalabs::GemmShape kSplitShapes[] = {
    {21, 544, 16384}, {130, 72, 30000}, {222, 565, 11528}, {2101, 2103, 2001}, {2384, 793, 6983}};
const BestGemm<__nv_bfloat16> kBest = &lab11::best_gemm;

// Why `best` does not split here: no Hopper kernels, or the build's kernel writes nothing yet.
std::string why_not_split() {
  for (const lab11::TensorCoreVariant& variant : lab11::variants()) {
    if (std::string(variant.name) != "warp_specialized") continue;
    if (const std::string reason = cudalabs::unavailable_reason(variant); !reason.empty())
      return "best splits K only on Hopper: " + reason;
  }
  return cudalabs::testing::best_writes_nothing(kBest, kSplitShapes[0]);
}

TEST(Lab11SplitFinish, CapturedGraphGivesTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  if (const std::string why = why_not_split(); !why.empty()) GTEST_SKIP() << why;
  cudalabs::testing::expect_capture_gives_the_same_bits(kBest, std::span(kSplitShapes));
}

TEST(Lab11SplitFinish, StreamsAtOnceGiveTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  if (const std::string why = why_not_split(); !why.empty()) GTEST_SKIP() << why;
  cudalabs::testing::expect_streams_give_the_same_bits(kBest, std::span(kSplitShapes), 20);
}

}  // namespace
