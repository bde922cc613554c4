// Lab 07's `best` plan on the CPU: the model's choices at shapes measured on the H100 (132 SMs),
// and the plan's invariants on many shapes.
#include "labs/07_wide_loads/best_plan.h"
#include "labs/07_wide_loads/tiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace lab07 {
namespace {

constexpr int kH100Sms = 132;

std::string tile_at(int m, int n, int k) {
  return plan_best({m, n, k}, kH100Sms).candidate->name;
}

// The choices the measurements of
// docs/data/history/lab07_v4-before-shapes_variants_nvidia-h100-80gb-hbm3.txt back.
TEST(BestPlan, PicksTheTileMeasuredFastest) {
  EXPECT_EQ(tile_at(8192, 8192, 8192), "wide_256x128");  // 102.5 % of cuBLAS, 128x256 97.1 %
  EXPECT_EQ(tile_at(4096, 4096, 4096), "wide_256x128");
  EXPECT_EQ(tile_at(3000, 3000, 3000), "wide_128x64");  // 2.2 waves of big tiles: 128x64 98.3 %
  // N = 64: the tiles 64 wide (64x64 measured 107.8 %, 128x64 98.7 %, 128x128 46.8 %).
  EXPECT_EQ(plan_best({20480, 64, 3200}, kH100Sms).candidate->bn, 64);
  EXPECT_EQ(tile_at(4095, 4097, 4099), "wide_256x128");  // 528 tiles: 4.0 waves
  EXPECT_EQ(plan_best({8192, 8192, 8192}, kH100Sms).splits, 1);
  // A small K: the rounds are short, and two blocks per SM hide each other's fill and stores
  // (lab07_plans: 4096 x 4096 x 64, 128x128 132 % of cuBLAS, 256x128 95.5 %).
  EXPECT_EQ(tile_at(4096, 4096, 64), "wide_128x128");
  EXPECT_EQ(tile_at(8192, 8192, 128), "wide_128x128");
  EXPECT_EQ(tile_at(5248, 8192, 100), "wide_128x128");
  EXPECT_EQ(tile_at(65536, 128, 1024), "wide_256x128");
}

// A C one tile wide shares no panel of A between blocks: every tile comes from DRAM, and the tile
// 16 deep covers the trip (65536 x 64 x 3200: wide_128x64x16 94.8 % of cuBLAS, wide_128x64 84.0 %,
// docs/data/history/lab07_v7-deeper-tiles_nvidia-h100-80gb-hbm3.txt).
TEST(BestPlan, StagesDeeperWhenEveryTileComesFromDram) {
  EXPECT_EQ(tile_at(65536, 64, 3200), "wide_128x64x16");
  EXPECT_EQ(tile_at(3000, 3000, 3000), "wide_128x64");  // panels shared: 8 deep is faster
  const TileCandidate* shallow = nullptr;
  for (const TileCandidate& c : best_candidates())
    if (c.tile == BestTile::k128x64) shallow = &c;
  ASSERT_NE(shallow, nullptr);
  // The same tiles per SM, but the one-tile-wide C waits on DRAM.
  const double wide_c = predicted_us(*shallow, {8192, 8192, 3200}, 1, kH100Sms) / (8192.0 * 8192);
  const double one_tile_c = predicted_us(*shallow, {65536, 64, 3200}, 1, kH100Sms) / (65536.0 * 64);
  EXPECT_GT(one_tile_c, wide_c * 1.1);
}

TEST(BestPlan, SplitsALargeKOverASmallC) {
  const BestPlan plan = plan_best({1024, 1024, 65536}, kH100Sms);
  EXPECT_GT(plan.splits, 1) << plan.describe();
  EXPECT_GT(plan_best({10240, 128, 6400}, kH100Sms).splits, 1);
  const BestPlan tiny = plan_best({64, 64, 5000}, kH100Sms);
  EXPECT_GT(tiny.splits, 1) << tiny.describe();
  // Not when the largest tile fills half the SMs (measured slower: 20480 x 64 x 3200, 61 %).
  EXPECT_EQ(plan_best({20480, 64, 3200}, kH100Sms).splits, 1);
  EXPECT_EQ(plan_best({40960, 3, 1600}, kH100Sms).splits, 1);
  // A split must pay: one tile of a small K is never split.
  EXPECT_EQ(plan_best({64, 64, 64}, kH100Sms).splits, 1);
}

// A C a few columns wide is a matrix-vector product: the narrow kernel streams A once, where the
// narrowest tile (64 columns) would compute 61 columns of zeros at N = 3.
TEST(BestPlan, StreamsANarrowC) {
  EXPECT_EQ(plan_best({40960, 3, 1600}, kH100Sms).candidate->tile, BestTile::kNarrow);
  EXPECT_EQ(plan_best({4096, 16, 4096}, kH100Sms).candidate->tile, BestTile::kNarrow);
  EXPECT_EQ(plan_best({100000, 1, 512}, kH100Sms).candidate->tile, BestTile::kNarrow);
  EXPECT_NE(plan_best({20480, 64, 3200}, kH100Sms).candidate->tile, BestTile::kNarrow);
  EXPECT_NE(plan_best({4096, 4096, 4096}, kH100Sms).candidate->tile, BestTile::kNarrow);
  // Its time is reading A at DRAM's speed: twice the rows, twice the time.
  const TileCandidate& narrow = best_candidates().back();
  ASSERT_EQ(narrow.tile, BestTile::kNarrow);
  const double half = predicted_us(narrow, {20480, 3, 1600}, 1, kH100Sms);
  const double whole = predicted_us(narrow, {40960, 3, 1600}, 1, kH100Sms);
  EXPECT_NEAR((whole - narrow.fixed_us) / (half - narrow.fixed_us), 2.0, 0.01);
}

// The plans best chooses from: every kernel unsplit, splits only with slices of 128 or more, the
// narrow kernel only for N <= 64, and best's choice among them.
TEST(BestPlan, CandidatePlansCoverTheChoices) {
  const std::vector<BestPlan> plans = candidate_plans({1024, 1024, 65536}, kH100Sms);
  int unsplit = 0;
  for (const BestPlan& plan : plans) {
    if (plan.splits == 1) ++unsplit;
    EXPECT_TRUE(plan.splits == 1 || plan.slice_k >= 128) << plan.describe();
    EXPECT_NE(plan.candidate->tile, BestTile::kNarrow);
  }
  EXPECT_EQ(unsplit, static_cast<int>(best_candidates().size()) - 1);  // all but the narrow one
  const BestPlan chosen = plan_best({1024, 1024, 65536}, kH100Sms);
  EXPECT_TRUE(std::any_of(plans.begin(), plans.end(), [&](const BestPlan& p) {
    return p.candidate == chosen.candidate && p.slice_k == chosen.slice_k;
  }));
  const std::vector<BestPlan> narrow = candidate_plans({40960, 3, 1600}, kH100Sms);
  EXPECT_TRUE(std::any_of(narrow.begin(), narrow.end(), [](const BestPlan& p) {
    return p.candidate->tile == BestTile::kNarrow;
  }));
  // No split of a K too short for two slices of 128.
  for (const BestPlan& plan : candidate_plans({64, 64, 200}, kH100Sms)) EXPECT_EQ(plan.splits, 1);
}

TEST(BestPlan, MoreWavesTakeLonger) {
  const TileCandidate& big = best_candidates().front();
  const double one_wave = predicted_us(big, {256 * 12, 128 * 11, 1024}, 1, kH100Sms);    // 132
  const double a_tile_more = predicted_us(big, {256 * 19, 128 * 7, 1024}, 1, kH100Sms);  // 133
  EXPECT_NEAR((a_tile_more - big.fixed_us) / (one_wave - big.fixed_us), 2.0, 1e-9);
  EXPECT_GT(predicted_us(big, {4096, 4096, 8192}, 1, kH100Sms),
            predicted_us(big, {4096, 4096, 4096}, 1, kH100Sms));
}

TEST(BestPlan, SlicesCoverKExactlyOnAnyShape) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> size(1, 20000);
  for (int i = 0; i < 2000; ++i) {
    const cudalabs::GemmShape shape{size(random), size(random) / 16 + 1, size(random) * 4};
    for (int sms : {1, 80, 132}) {
      const BestPlan plan = plan_best(shape, sms);
      ASSERT_NE(plan.candidate, nullptr);
      for (const BestPlan& other : candidate_plans(shape, sms)) {
        ASSERT_GE(static_cast<long long>(other.slice_k) * other.splits, shape.k);
        ASSERT_LT(static_cast<long long>(other.slice_k) * (other.splits - 1), shape.k);
        ASSERT_GT(other.predicted_us, 0.0);
      }
      ASSERT_GE(plan.splits, 1);
      ASSERT_LE(plan.splits, 16);
      ASSERT_GT(plan.predicted_us, 0.0);
      if (plan.splits == 1) {
        ASSERT_EQ(plan.slice_k, shape.k);
      } else {
        ASSERT_EQ(plan.slice_k % 8, 0) << plan.describe();
        // One launch of plan.splits slices: the kernels find the slice length from K alone.
        ASSERT_EQ(plan.slice_k, k_slice_length(shape.k, plan.splits)) << plan.describe();
        ASSERT_GE(static_cast<long long>(plan.slice_k) * plan.splits, shape.k) << plan.describe();
        ASSERT_LT(static_cast<long long>(plan.slice_k) * (plan.splits - 1), shape.k)
            << plan.describe();
      }
    }
  }
}

TEST(BestPlan, DescribesItself) {
  EXPECT_EQ(plan_best({8192, 8192, 8192}, kH100Sms).describe().rfind("wide_256x128, predicted", 0),
            0u);
  EXPECT_NE(plan_best({1024, 1024, 65536}, kH100Sms).describe().find("K split"), std::string::npos);
}

TEST(RepackPays, CopiesMisalignedOperandsOfLargeProblems) {
  // 4096^3 with B one float off: the copy (B read and written once, about 54 us) against 11 % of
  // a plan of about 2.7 ms.
  const cudalabs::GemmShape square{4096, 4096, 4096};
  const BestPlan plan = plan_best(square, kH100Sms);
  EXPECT_TRUE(repack_pays(plan, square, false, true, kH100Sms));
  EXPECT_TRUE(repack_pays(plan, square, true, true, kH100Sms));
  // The grading case that exercises the copy on the GPU (lab07_grading_test.cpp).
  const cudalabs::GemmShape graded{2048, 2048, 2048};
  EXPECT_TRUE(repack_pays(plan_best(graded, kH100Sms), graded, true, true, kH100Sms));
}

TEST(RepackPays, NeverWithoutAMisalignedOperandOrForSmallProblems) {
  const cudalabs::GemmShape square{4096, 4096, 4096};
  EXPECT_FALSE(repack_pays(plan_best(square, kH100Sms), square, false, false, kH100Sms));
  for (const cudalabs::GemmShape small :
       {cudalabs::GemmShape{1, 1, 1}, cudalabs::GemmShape{64, 64, 64},
        cudalabs::GemmShape{131, 67, 69}, cudalabs::GemmShape{256, 256, 64}}) {
    EXPECT_FALSE(repack_pays(plan_best(small, kH100Sms), small, true, true, kH100Sms))
        << small.label();
  }
}

TEST(RepackPays, NeverForTheNarrowKernel) {
  // Its loads take any alignment: 65536 x 3 x 4096 reads A once either way.
  const cudalabs::GemmShape narrow{65536, 3, 4096};
  const BestPlan plan = plan_best(narrow, kH100Sms);
  ASSERT_EQ(plan.candidate->tile, BestTile::kNarrow);
  EXPECT_FALSE(repack_pays(plan, narrow, true, true, kH100Sms));
}

TEST(RepackPays, CopiesWhenTheCopyIsCheaperThanTheScalarPath) {
  // Against the model's own terms, on random shapes: the copy's time must stay below what the
  // scalar path would add whenever the answer is yes.
  std::mt19937 random(7);
  std::uniform_int_distribution<int> side(1, 12000);
  for (int trial = 0; trial < 500; ++trial) {
    const cudalabs::GemmShape shape{side(random), side(random), side(random)};
    const BestPlan plan = plan_best(shape, kH100Sms);
    const bool pack_a = trial % 3 != 1, pack_b = trial % 3 != 0;
    if (!repack_pays(plan, shape, pack_a, pack_b, kH100Sms)) continue;
    const double bytes = 4.0 * ((pack_a ? double(shape.m) * shape.k : 0.0) +
                                (pack_b ? double(shape.k) * shape.n : 0.0));
    EXPECT_LT(2.0 * bytes / (2500.0 * 1e3), plan.predicted_us * (1.0 / kScalarPathRate - 1.0))
        << shape.label();
  }
}

}  // namespace
}  // namespace lab07
