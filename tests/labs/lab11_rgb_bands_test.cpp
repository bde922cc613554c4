// Lab 11's RGB layer on the CPU: how its wave model splits an image's superpixel rows into bands
// (rgb_bands.h), at the DCGAN's sizes and on many others.
#include "labs/11_tensor_cores/rgb_bands.h"

#include <gtest/gtest.h>

namespace lab11 {
namespace {

// 12 warps an SM on 132 SMs: the BF16 layer's resident warps on an H200.
constexpr long long kH200Warps = 12 * 132;

TEST(RgbBands, ManyImagesKeepWholeImages) {
  // The DCGAN's batch of 5248 (32 superpixel rows, one unit a row): 3.3 waves of whole images.
  const RgbBands dcgan = plan_rgb_bands(32, 5248, kH200Warps);
  EXPECT_EQ(dcgan.bands, 1);
  EXPECT_EQ(dcgan.band_rows, 32);
  // Units past the resident warps never gain from bands: each band re-reads two rows.
  for (long long units : {kH200Warps, 2 * kH200Warps, 100 * kH200Warps})
    EXPECT_EQ(plan_rgb_bands(64, units, kH200Warps).bands, 1) << units << " units";
}

TEST(RgbBands, FewImagesFillTheGpu) {
  // Three images leave most warps idle: bands of the fewest rows allowed.
  const RgbBands three = plan_rgb_bands(32, 3, kH200Warps);
  EXPECT_EQ(three.band_rows, kRgbMinBandRows);
  EXPECT_EQ(three.bands, 32 / kRgbMinBandRows);
  // A batch of 1024 (about two thirds of a wave) splits in two: one band would leave a third of
  // the warps idle, and rows + 2 of 16 cost less than 32.
  const RgbBands batch = plan_rgb_bands(32, 1024, kH200Warps);
  EXPECT_GT(batch.bands, 1);
  EXPECT_LE(1024LL * batch.bands, 2 * kH200Warps);
  // 41 rows at the least band height: 11 bands, the last of one row.
  const RgbBands tall = plan_rgb_bands(41, 2, kH200Warps);
  EXPECT_EQ(tall.band_rows, kRgbMinBandRows);
  EXPECT_EQ(tall.bands, 11);
}

TEST(RgbBands, BandsCoverEveryRowOnce) {
  for (int height = 1; height <= 200; ++height)
    for (long long units : {1LL, 7LL, 300LL, 5248LL, 1000000LL})
      for (long long warps : {1LL, 64LL, kH200Warps}) {
        const RgbBands plan = plan_rgb_bands(height, units, warps);
        SCOPED_TRACE(std::to_string(height) + " rows, " + std::to_string(units) + " units, " +
                     std::to_string(warps) + " warps");
        ASSERT_GE(plan.bands, 1);
        ASSERT_GE(plan.band_rows, 1);
        EXPECT_GE(static_cast<long long>(plan.bands) * plan.band_rows, height);  // every row
        EXPECT_LT(static_cast<long long>(plan.bands - 1) * plan.band_rows,
                  height);  // no empty band
        if (plan.bands > 1)
          EXPECT_GE(plan.band_rows, kRgbMinBandRows);
        else
          EXPECT_EQ(plan.band_rows, height);
      }
}

TEST(RgbBands, MoreUnitsNeverMoreBands) {
  for (int height : {5, 16, 32, 64, 127})
    for (long long units = 1; units < 4 * kH200Warps; units = units * 3 / 2 + 1)
      EXPECT_GE(plan_rgb_bands(height, units, kH200Warps).bands,
                plan_rgb_bands(height, units * 2, kH200Warps).bands)
          << height << " rows, " << units << " units";
}

}  // namespace
}  // namespace lab11
