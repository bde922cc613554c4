// Lab 08's block plan (tiling.h) on the CPU: [COARSEN-KGP]'s block sizes, partial tiles, channel
// chunks, shrunk tiles and the refusal of filters that cannot fit.
#include "labs/08_coarsening/lab.h"
#include "labs/08_coarsening/tiling.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

TEST(Lab08Tiling, BlockSizesFollowCoarsenKgpTables) {
  // Tables 3.1 and 3.2 list blocks of 841 (not rounded), 448, 224, 128, 64, 32 for case I and 992,
  // 512, 256, 128, 64, 32 for case II: ceil(outputs / factor) rounded up to whole warps.
  const int factors[] = {1, 2, 4, 8, 16, 32};
  const int case1[] = {864, 448, 224, 128, 64, 32};
  const int case2[] = {992, 512, 256, 128, 64, 32};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(lab08::plan_tiling(lab08::kSeedCases[0].shape, factors[i]).threads, case1[i])
        << factors[i];
    EXPECT_EQ(lab08::plan_tiling(lab08::kSeedCases[1].shape, factors[i]).threads, case2[i])
        << factors[i];
  }
}

TEST(Lab08Tiling, SeedCasesUseOneBlockPerImageAndFilter) {
  const lab08::ConvTiling t = lab08::plan_tiling(lab08::kSeedCases[1].shape, 4);
  EXPECT_EQ(t.tiles, 1);
  EXPECT_EQ(t.tile_p, 31);
  EXPECT_EQ(t.tile_q, 31);
  EXPECT_EQ(t.patch_h, 45);
  EXPECT_EQ(t.channel_chunk, 5);
  EXPECT_EQ(t.shared_bytes, (45 * 45 + 15 * 15) * 5 * sizeof(float));  // the same for every factor
  EXPECT_EQ(lab08::plan_tiling(lab08::kSeedCases[1].shape, 32).shared_bytes, t.shared_bytes);
}

TEST(Lab08Tiling, LargeOutputsAreTiledWithPartialTiles) {
  const lab08::ConvTiling t = lab08::plan_tiling({3, 37, 70, 3, 4, 5, 4}, 1);  // P = 33, Q = 67
  EXPECT_EQ(t.tile_q, 32);
  EXPECT_EQ(t.tile_p, 32);
  EXPECT_EQ(t.tiles_q, 3);
  EXPECT_EQ(t.tiles, 6);
  EXPECT_EQ(t.threads, 1024);
}

TEST(Lab08Tiling, ManyChannelsAreStagedInChunks) {
  const lab08::ConvTiling t = lab08::plan_tiling({2, 40, 40, 64, 3, 7, 7}, 2);
  EXPECT_LT(t.channel_chunk, 64);
  EXPECT_GE(t.channel_chunk, 1);
  EXPECT_LE(t.shared_bytes, lab08::kSharedBudgetBytes);
}

TEST(Lab08Tiling, LargeFiltersShrinkTheTileOrAreRefused) {
  const lab08::ConvTiling t = lab08::plan_tiling({1, 110, 110, 1, 1, 70, 70}, 1);
  EXPECT_LT(t.tile_p, 32);
  EXPECT_LE(t.shared_bytes, lab08::kSharedBudgetBytes);
  EXPECT_THROW(lab08::plan_tiling({1, 200, 200, 1, 1, 90, 90}, 1), std::invalid_argument);
  EXPECT_THROW(lab08::plan_tiling({1, 5, 5, 1, 1, 1, 1}, 0), std::invalid_argument);
}

}  // namespace
