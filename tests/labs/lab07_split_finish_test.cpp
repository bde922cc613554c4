// Lab 07's split plans where the launch sums the parts itself (k_slice.cuh's TilePart): split-K and
// stream-K on the wide kernels, the narrow kernel and the few-rows kernel split, each the same bits
// as the two-kernel sum a captured graph takes, and with several streams at once, more than keep
// arrival words (tests/support/split_finish_checks.h).
#include "common/launch_utils.h"
#include "labs/07_wide_loads/lab.h"
#include "tests/support/gpu_test.h"
#include "tests/support/split_finish_checks.h"

#include <gtest/gtest.h>

#include <span>
#include <stdexcept>
#include <string>

namespace {

// A share-out of K with its own finish.
enum class Split { kSlices, kStream, kNarrow, kFewRows };

// The plan of `split`'s kind for `shape` that the model predicts fastest (candidate_plans: every
// plan `best` weighs, whichever it picks).
lab07::BestPlan plan_of(const cudalabs::GemmShape& shape, Split split) {
  const lab07::BestPlan* fastest = nullptr;
  const std::vector<lab07::BestPlan> plans =
      lab07::candidate_plans(shape, cudalabs::multiprocessor_count());
  for (const lab07::BestPlan& plan : plans) {
    const lab07::TileCandidate& c = *plan.candidate;
    const bool kind = split == Split::kStream    ? plan.stream_k()
                      : split == Split::kFewRows ? c.few_rows && plan.splits > 1
                      : split == Split::kNarrow  ? c.narrow && plan.splits > 1
                                                 : plan.splits > 1 && !c.few_rows && !c.narrow;
    if (kind && (fastest == nullptr || plan.predicted_us < fastest->predicted_us)) fastest = &plan;
  }
  if (fastest == nullptr) throw std::logic_error("no such plan for " + shape.label());
  return *fastest;
}

template <Split kSplit>
void run_split(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  lab07::launch_plan(plan_of(args.shape(), kSplit), args, stream);
}

// C of one tile and of several, with slices that end inside a tile's depth; the narrow kernel's
// chunks of 4, 8 and 16 columns; the few-rows kernel's groups of 4, 8 and 16 rows.
const cudalabs::GemmShape kTileShapes[] = {{200, 300, 2000}, {33, 65, 4099}, {517, 130, 1501}};
const cudalabs::GemmShape kNarrowShapes[] = {{517, 3, 3000}, {40, 7, 2501}, {300, 13, 1501}};
const cudalabs::GemmShape kFewRowsShapes[] = {{3, 517, 1500}, {7, 33, 3001}, {20, 301, 777}};

struct Case {
  const char* name;
  cudalabs::testing::BestGemm<float> run;
  std::span<const cudalabs::GemmShape> shapes;
  bool given;  // the given few-rows kernel: runs in a student's build too
};
const Case kCases[] = {{"split-K", &run_split<Split::kSlices>, kTileShapes, false},
                       {"stream-K", &run_split<Split::kStream>, kTileShapes, false},
                       {"narrow split", &run_split<Split::kNarrow>, kNarrowShapes, false},
                       {"few rows split", &run_split<Split::kFewRows>, kFewRowsShapes, true}};

TEST(Lab07SplitFinish, CapturedGraphGivesTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  int ran = 0;
  for (const Case& c : kCases) {
    if (!cudalabs::testing::best_writes_nothing(c.run, c.shapes[0]).empty()) continue;
    SCOPED_TRACE(c.name);
    cudalabs::testing::expect_capture_gives_the_same_bits(c.run, c.shapes);
    ++ran;
  }
  EXPECT_GE(ran, 1);  // the few-rows kernel is given: it runs in every build
}

TEST(Lab07SplitFinish, StreamsAtOnceGiveTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  int ran = 0;
  for (const Case& c : kCases) {
    if (!cudalabs::testing::best_writes_nothing(c.run, c.shapes[0]).empty()) continue;
    SCOPED_TRACE(c.name);
    cudalabs::testing::expect_streams_give_the_same_bits(c.run, c.shapes, 20);
    ++ran;
  }
  EXPECT_GE(ran, 1);
}

// The given few-rows kernel writes in every build; the tile kernels in the solution's.
TEST(Lab07SplitFinish, EveryKindRunsWhereItsKernelIsWritten) {
  CUDALABS_REQUIRE_GPU();
  const bool solution = std::string(CUDALABS_BUILD_NAME) == "solution";
  for (const Case& c : kCases) {
    const std::string nothing = cudalabs::testing::best_writes_nothing(c.run, c.shapes[0]);
    if (c.given || solution) {
      EXPECT_EQ(nothing, "") << c.name;
    }
  }
}

}  // namespace
