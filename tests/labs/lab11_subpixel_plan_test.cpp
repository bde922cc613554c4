// Lab 11, step 7's plan on the CPU (subpixel_plan.h): the DCGAN's layers, and the invariants the
// kernel relies on for every layer the plan accepts (whole-row tiles, the halo's box offsets on the
// swizzle's 1024-byte period, two stages in shared memory), on many shapes.
#include "labs/11_tensor_cores/subpixel_plan.h"

#include "common/reference_dcgan.h"
#include "labs/09_dcgan/subpixel.h"
#include "tests/support/expect_rejected.h"

#include <gtest/gtest.h>

namespace lab11 {
namespace {

using cudalabs::dcgan::TconvShape;

TEST(SubpixelPlan, TheDcganLayers) {
  // tconv1 (4 x 4 x 512 -> 256): rows of 4 pixels are off the swizzle's period: a box per tap.
  const SubpixelPlan one = plan_subpixel(cudalabs::dcgan::generator_layer(1, 5248));
  EXPECT_EQ(one.width, 256);
  EXPECT_EQ(one.tile_pixels, 128);
  EXPECT_FALSE(one.halo);
  EXPECT_EQ(one.box_rows, 4);
  EXPECT_EQ(one.box_images, 8);
  // tconv2 (8 x 8 x 256 -> 128): tiles of four whole images, each boxed with its two halo rows.
  const SubpixelPlan two = plan_subpixel(cudalabs::dcgan::generator_layer(2, 5248));
  EXPECT_EQ(two.width, 128);
  EXPECT_EQ(two.tile_pixels, 256);
  EXPECT_TRUE(two.halo);
  EXPECT_EQ(two.box_rows, 10);
  EXPECT_EQ(two.box_images, 4);
  EXPECT_EQ(two.a_box_bytes, 4u * 10 * 8 * 128);
  EXPECT_EQ(two.stages, 2);
  // tconv3 (16 x 16 x 128 -> 64): one image a tile, 18 rows a box, three stages.
  const SubpixelPlan three = plan_subpixel(cudalabs::dcgan::generator_layer(3, 5248));
  EXPECT_EQ(three.width, 64);
  EXPECT_EQ(three.tile_pixels, 256);
  EXPECT_TRUE(three.halo);
  EXPECT_EQ(three.box_rows, 18);
  EXPECT_EQ(three.box_images, 1);
  EXPECT_EQ(three.stages, 3);
}

TEST(SubpixelPlan, FallsBackToSmallerTilesAndToABoxPerTap) {
  // 24 x 16 images (384 pixels): 256 is neither a multiple nor a divisor, 128 is.
  const SubpixelPlan rows = plan_subpixel({2, 24, 16, 64, 128});
  EXPECT_EQ(rows.tile_pixels, 128);
  EXPECT_TRUE(rows.halo);
  EXPECT_EQ(rows.box_rows, 8 + 2);
  // 256 output channels: three taps of B (96 KiB) and the box leave room for one stage only.
  const SubpixelPlan wide = plan_subpixel({1, 32, 16, 64, 256});
  EXPECT_FALSE(wide.halo);
  EXPECT_GE(wide.stages, 2);
  // One row a tile (W = 256): the halo would read three rows for one; two rows (W = 128) gain.
  const SubpixelPlan one_row = plan_subpixel({1, 4, 256, 64, 64});
  EXPECT_EQ(one_row.tile_rows, 1);
  EXPECT_FALSE(one_row.halo);
  const SubpixelPlan two_rows = plan_subpixel({1, 4, 128, 64, 64});
  EXPECT_EQ(two_rows.tile_rows, 2);
  EXPECT_TRUE(two_rows.halo);
}

// Tiles by position where the kernel takes them and they multiply fewer taps: tconv1's 4 x 4
// images at batch 5248 (the copy engine's zeros are 28 % of its taps by rows), not a batch too
// small to fill a tile of images, never with the halo, never where the kernel does not take them.
TEST(SubpixelPlan, TilesByPositionWhereTheyMultiplyFewerTaps) {
  const TconvShape tconv1 = cudalabs::dcgan::generator_layer(1, 5248);
  EXPECT_FALSE(plan_subpixel(tconv1).by_position);
  const SubpixelPlan one = plan_subpixel(tconv1, true);
  EXPECT_TRUE(one.by_position);
  EXPECT_EQ(one.tile_pixels, 128);
  EXPECT_EQ(one.box_rows, 1);
  EXPECT_EQ(one.box_images, 128);
  EXPECT_EQ(one.a_box_bytes, 128u * 128);
  EXPECT_EQ(one.stages, 4);
  // The counts behind it, worked by hand: a row of 4 reaches 10 of 12 three-tap and 7 of 8
  // two-tap placements, so the 4 x 4 positions of the four phases reach 17 x 17 = 289 of 400.
  EXPECT_EQ(detail::position_tile_taps(tconv1, 128), 41 * 289);
  EXPECT_EQ(detail::row_tile_taps(tconv1, 128), 656 * 25);
  // Batch 9: one tile of 9 images a position multiplies more than two tiles of rows.
  EXPECT_FALSE(plan_subpixel(cudalabs::dcgan::generator_layer(1, 9), true).by_position);
  // The halo layers keep the halo; tconv2 and tconv3 at batch 5248.
  for (const int layer : {2, 3}) {
    const SubpixelPlan plan = plan_subpixel(cudalabs::dcgan::generator_layer(layer, 5248), true);
    EXPECT_TRUE(plan.halo) << layer;
    EXPECT_FALSE(plan.by_position) << layer;
  }
  // Rectangular images without the halo: 4 x 8 at batch 256, tiles of 256 images.
  const SubpixelPlan wide = plan_subpixel({256, 4, 8, 64, 128}, true);
  EXPECT_TRUE(wide.by_position);
  EXPECT_EQ(wide.tile_pixels, 256);
}

TEST(SubpixelPlan, RefusesWhatNoTileFits) {
  using cudalabs::testing::expect_rejected;
  expect_rejected(
      "plan_subpixel",
      [] {
        plan_subpixel({1, 4, 4, 64, 96});
      },
      "out_channels = 96");
  expect_rejected(
      "plan_subpixel",
      [] {
        plan_subpixel({1, 3, 8, 64, 128});
      },
      "width = 8");
  expect_rejected(
      "plan_subpixel",
      [] {
        plan_subpixel({1, 4, 12, 64, 128});
      },
      "width = 12");
}

// Every accepted layer: what the kernel assumes of the plan.
TEST(SubpixelPlan, KeepsTheKernelsInvariantsOnEveryShape) {
  int accepted = 0, halos = 0, by_positions = 0;
  for (const int height : {1, 2, 3, 4, 5, 8, 12, 16, 24, 32, 64, 128})
    for (const int width : {1, 2, 4, 8, 12, 16, 24, 32, 64, 128, 256})
      for (const int k : {64, 128, 192, 256, 320, 512}) {
        const TconvShape shape{3, height, width, 64, k};
        SubpixelPlan plan;
        try {
          plan = plan_subpixel(shape);
        } catch (const std::invalid_argument&) {
          continue;
        }
        // By position at a batch that fills its tiles: the box is one pixel of BM images.
        const SubpixelPlan by_position = plan_subpixel({600, height, width, 64, k}, true);
        if (by_position.by_position) {
          ASSERT_FALSE(by_position.halo) << height << " x " << width;
          ASSERT_EQ(by_position.box_images, by_position.tile_pixels);
          ASSERT_EQ(by_position.a_box_bytes, 128u * by_position.tile_pixels);
          ASSERT_GE(by_position.stages, 2);
          ASSERT_LE(by_position.shared_bytes, kSubpixelSharedLimit);
          ASSERT_EQ(by_position.staging_bytes, 0u);  // its epilogue stores its tiles itself
          ASSERT_EQ(by_position.stage_bytes % 1024, 0u);
          ASSERT_GE(by_position.stage_bytes, by_position.a_box_bytes + by_position.width * 128u);
          ++by_positions;
        }
        ++accepted;
        const std::string at =
            std::to_string(height) + " x " + std::to_string(width) + " k " + std::to_string(k);
        const int image_pixels = height * width;
        ASSERT_EQ(plan.tile_pixels % width, 0) << at;
        ASSERT_TRUE(plan.tile_pixels % image_pixels == 0 || image_pixels % plan.tile_pixels == 0)
            << at;
        ASSERT_EQ(k % plan.width, 0) << at;
        ASSERT_EQ(plan.tile_rows * width * plan.box_images, plan.tile_pixels) << at;
        ASSERT_GE(plan.stages, 2) << at;
        ASSERT_LE(plan.stages, kSubpixelMaxStages) << at;
        ASSERT_LE(plan.shared_bytes, kSubpixelSharedLimit) << at;
        // Tiles of image rows hold the epilogue's staging and its 1024-byte alignment beside the
        // stages; the output's phase map (phase_output_map) needs a width that is a power of two.
        ASSERT_EQ(plan.staging_bytes, kSubpixelStagingBytes) << at;
        ASSERT_EQ(plan.shared_bytes, plan.stages * plan.stage_bytes + plan.fixed_bytes) << at;
        ASSERT_GE(plan.fixed_bytes, 2 * 1024 + plan.staging_bytes + 8u * k) << at;
        ASSERT_EQ(width & (width - 1), 0) << at;
        ASSERT_EQ(plan.stage_bytes % 1024, 0u) << at;
        ASSERT_GE(plan.stage_bytes, plan.a_box_bytes + (plan.halo ? 3u : 1u) * plan.width * 128)
            << at;
        if (!plan.halo) {
          ASSERT_EQ(plan.box_rows, plan.tile_rows) << at;
          continue;
        }
        ++halos;
        ASSERT_NE(plan.width, 256) << at;  // SubpixelTile<256, 1>::kMayHalo is false
        ASSERT_EQ(plan.box_rows, plan.tile_rows + 2) << at;
        ASSERT_EQ(plan.a_box_bytes % 1024, 0u) << at;  // B's panels start on the period too
        // Each 64-pixel block of each tap row starts on the swizzle's period, inside one image.
        for (int m = 0; m < plan.tile_pixels; m += 64) {
          const int image = m / (plan.tile_rows * width), in_image = m % (plan.tile_rows * width);
          ASSERT_LE(in_image + 64, plan.tile_rows * width) << at << " block " << m;
          for (int row = 0; row < 3; ++row) {
            const long long offset =
                (static_cast<long long>(image) * plan.box_rows * width + row * width + in_image) *
                128;
            ASSERT_EQ(offset % 1024, 0) << at << " block " << m << " row " << row;
            ASSERT_LE(offset + 64 * 128, static_cast<long long>(plan.a_box_bytes)) << at;
          }
        }
        // Fewer bytes of A than a box per tap: 10 boxes of R + 2 rows against 25 of R.
        ASSERT_LT(10 * (plan.tile_rows + 2), 25 * plan.tile_rows) << at;
      }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(halos, 30);
  EXPECT_GT(by_positions, 10);
}

}  // namespace
}  // namespace lab11
