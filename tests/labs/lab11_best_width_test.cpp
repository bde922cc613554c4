// Lab 11's `best` tile width on the CPU: the choices at shapes measured on the H100 (132 SMs), and
// the model's invariants on many shapes.
#include "labs/11_tensor_cores/best_width.h"

#include <gtest/gtest.h>

#include <random>

namespace lab11 {
namespace {

constexpr int kH100Sms = 132;

TEST(BestWidth, CountsTilesOfEveryWidth) {
  EXPECT_EQ(specialized_tile_count({4096, 4096, 4096}, 64), 32 * 64);
  EXPECT_EQ(specialized_tile_count({4096, 4096, 4096}, 256), 32 * 16);
  EXPECT_EQ(specialized_tile_count({4096, 4096, 4096}, 128), 32 * 32);
  EXPECT_EQ(specialized_tile_count({1, 1, 1}, 256), 1);
  EXPECT_EQ(specialized_tile_count({129, 257, 5}, 256), 2 * 2);
  EXPECT_EQ(specialized_tile_count({129, 257, 5}, 128), 2 * 3);
}

TEST(BestWidth, PicksTheWideTileWhereItsRoundsAreFull) {
  // 512 wide tiles on 132 SMs: 4 rounds (3.9 full); 128-wide ones need 8 at half the work each,
  // 0.94 of the rate: 4.26 wide tiles' time; 64-wide ones 16 rounds, 5.7.
  EXPECT_EQ(best_width({4096, 4096, 4096}, kH100Sms), 256);
  EXPECT_EQ(best_width({8192, 8192, 8192}, kH100Sms), 256);  // 16 rounds against 32
  EXPECT_EQ(best_width({16384, 16384, 16384}, kH100Sms), 256);
}

TEST(BestWidth, PicksTheNarrowTileWhereTheLastRoundOfWideOnesIsMostlyIdle) {
  // 3000^3: 288 wide tiles are 3 rounds with the third 18 % full; 576 narrow ones are 5 rounds
  // (2.66 wide tiles' time).
  EXPECT_EQ(best_width({3000, 3000, 3000}, kH100Sms), 128);
  // 2048 x 2048: 128 wide tiles are one round on 132 SMs, 256 narrow ones two: 1.06 > 1.
  EXPECT_EQ(best_width({2048, 2048, 2048}, kH100Sms), 256);
  // 2048 x 1536: 96 wide tiles, one round with 36 SMs idle; 192 narrow ones, two rounds; 384
  // of 64 columns, three rounds (1.07): still wide.
  EXPECT_EQ(best_width({2048, 1536, 4096}, kH100Sms), 256);
}

TEST(BestWidth, NarrowestWhenCIsAtMost64ColumnsWide) {
  // Every width cuts C into the same tiles; the wider ones compute most of each for nothing.
  for (const int n : {1, 7, 33, 64}) {
    for (const int m : {1, 128, 4096, 65536}) EXPECT_EQ(best_width({m, n, 256}, kH100Sms), 64);
  }
  // 65 to 128 columns: 128-wide tiles, unless twice as many 64-wide ones still fit one round.
  EXPECT_EQ(best_width({65536, 128, 256}, kH100Sms), 128);  // 512 tiles: 4 rounds against 8
  EXPECT_EQ(best_width({128, 100, 256}, kH100Sms), 64);     // 2 tiles against 1: both one round
}

TEST(BestWidth, AlwaysOneOfTheWidthsAndNoWorseByTheModel) {
  std::mt19937 random(11);
  std::uniform_int_distribution<int> side(1, 20000);
  std::uniform_int_distribution<int> sms(1, 160);
  for (int trial = 0; trial < 2000; ++trial) {
    const cudalabs::GemmShape shape{side(random), side(random), side(random)};
    const int count = sms(random);
    const int width = best_width(shape, count);
    ASSERT_TRUE(width == 64 || width == 128 || width == 256) << shape.label();
    const auto time = [&](int w) {
      const double rounds =
          static_cast<double>((specialized_tile_count(shape, w) + count - 1) / count);
      return rounds * w / 256.0 / specialized_tile_rate(w);
    };
    for (const int other : kSpecializedWidths)
      EXPECT_LE(time(width), time(other)) << shape.label() << " on " << count << " SMs";
  }
}

}  // namespace
}  // namespace lab11
