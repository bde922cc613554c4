// Lab 11's split of K on the CPU: the work units the warp-specialized kernel walks (work_units.h)
// and `best`'s plan (best_plan.h): where K must be split (a C of few tiles over a long K, the
// random-shapes record's worst shapes among them), where it must not (a C that fills the SMs, a
// short K), and the model's invariants on many shapes.
#include "labs/11_tensor_cores/best_plan.h"
#include "labs/11_tensor_cores/work_units.h"
#include "tests/support/expect_rejected.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace lab11 {
namespace {

constexpr int kH100Sms = 132;  // the H200's too

using cudalabs::GemmShape;

// A GPU's room for clusters of up to `most` blocks, a block an SM, on GPCs of `gpc_sms` SMs: a
// cluster's blocks share a GPC, so each GPC holds its SMs / blocks of them (a model of the real
// GPU's, which the runtime is asked for: launch.cuh, sliced_cluster_room).
ClusterRoom room_of_gpcs(const std::vector<int>& gpc_sms, int most) {
  ClusterRoom room;
  for (int blocks = 2; blocks <= std::min(most, kMaxClusterSlices); ++blocks)
    for (const int sms : gpc_sms) room.at_once[blocks] += sms / blocks;
  return room;
}

// A model GPU of 132 SMs on eight GPCs, clusters of up to kMaxClusterSlices blocks. (The H100's
// runtime reports a little less room, 39 clusters of 3 where this holds 42: the record
// docs/data/history/lab11_cluster_room_s39_nvidia-h100/; the plans' rules are the same.)
ClusterRoom h100_room(int most = kMaxClusterSlices) {
  return room_of_gpcs({16, 16, 16, 16, 16, 16, 18, 18}, most);
}

// A shape drawn log-uniformly in each of M, N and K.
GemmShape draw_shape(std::mt19937& random, int max_mn, int max_k) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto draw = [&](int most) {
    return static_cast<int>(std::exp(unit(random) * std::log(static_cast<double>(most))));
  };
  return {std::max(1, draw(max_mn)), std::max(1, draw(max_mn)), std::max(1, draw(max_k))};
}

TEST(WorkUnits, SlicesFitOnlyWhenNoSliceIsEmpty) {
  EXPECT_TRUE(WorkUnits::slices_fit(10, 1));
  EXPECT_TRUE(WorkUnits::slices_fit(10, 4));   // 3, 3, 3, 1
  EXPECT_TRUE(WorkUnits::slices_fit(10, 5));   // 2 each
  EXPECT_FALSE(WorkUnits::slices_fit(10, 6));  // slices of 2 cover 10 in 5
  EXPECT_TRUE(WorkUnits::slices_fit(10, 10));
  EXPECT_FALSE(WorkUnits::slices_fit(10, 11));
  EXPECT_FALSE(WorkUnits::slices_fit(10, 0));
  EXPECT_TRUE(WorkUnits::slices_fit(1, 1));
}

TEST(WorkUnits, CountsTilesAndKBlocksWithPartialEdges) {
  // 163 x 216 x 13649 on 128 x 128 x 64: 2 x 2 tiles, 214 k-blocks (the last 17 deep).
  const WorkUnits units = WorkUnits::of({163, 216, 13649}, 128, 128, 64, 31);
  EXPECT_EQ(units.tiles_m, 2);
  EXPECT_EQ(units.tiles_n, 2);
  EXPECT_EQ(units.k_blocks, 214);
  EXPECT_EQ(units.tiles(), 4);
  EXPECT_EQ(units.count(), 4 * 31);
  EXPECT_EQ(units.slice_blocks(), 7);  // 30 slices of 7, the last 4
  EXPECT_EQ(units.first_k_block(units.count() - 1), 210);
  EXPECT_EQ(units.end_k_block(units.count() - 1), 214);
  EXPECT_TRUE(units.split());
  EXPECT_FALSE(WorkUnits::of({1, 1, 1}, 128, 256, 64, 1).split());
}

TEST(WorkUnits, RefusesACountThatLeavesASliceEmpty) {
  // The units of a 128 x 128 C over K on 128 x 128 x 64 tiles, K in `slices` slices.
  const auto units_of = [](int k, int slices) {
    return [k, slices] { WorkUnits::of({128, 128, k}, 128, 128, 64, slices); };
  };
  cudalabs::testing::expect_rejected("10 k-blocks in 6 slices", units_of(640, 6), "slices = 6");
  cudalabs::testing::expect_rejected("1 k-block in 2 slices", units_of(64, 2), "slices = 2");
  cudalabs::testing::expect_rejected("no slice", units_of(64, 0), "slices = 0");
}

// Every (tile, k-block) is computed by exactly one unit, every unit has at least one k-block, and
// the units of a slice store into that slice of the workspace.
TEST(WorkUnits, CoverEveryTileAndKBlockOnceAndStoreIntoTheirSlice) {
  std::mt19937 random(53);
  for (int trial = 0; trial < 300; ++trial) {
    const GemmShape shape = draw_shape(random, 2000, 20000);
    const int width = trial % 2 == 0 ? 128 : 256;
    const int k_blocks = (shape.k + 63) / 64;
    std::uniform_int_distribution<int> slice_count(1, k_blocks);
    int slices = slice_count(random);
    while (!WorkUnits::slices_fit(k_blocks, slices)) --slices;
    const int tiles = ((shape.m + 127) / 128) * ((shape.n + width - 1) / width);
    // every other split a tail split: its first tiles K whole
    const int whole = slices > 1 && trial % 4 >= 2 ? static_cast<int>(random() % tiles) : 0;
    const WorkUnits units = WorkUnits::of(shape, 128, width, 64, slices, whole);
    std::vector<int> covered(static_cast<std::size_t>(units.tiles()) * k_blocks, 0);
    for (int unit = 0; unit < units.count(); ++unit) {
      const int first_block = units.first_k_block(unit);
      const int end_block = units.end_k_block(unit);
      ASSERT_LT(first_block, end_block)
          << shape.label() << " slices " << slices << " unit " << unit;
      for (int kt = first_block; kt < end_block; ++kt)
        ++covered[static_cast<std::size_t>(units.tile(unit)) * k_blocks + kt];
      ASSERT_EQ(units.whole_in_split(unit), units.tile(unit) < whole) << shape.label();
      if (units.whole_in_split(unit)) ASSERT_TRUE(first_block == 0 && end_block == k_blocks);
      cudalabs::Bf16GemmArgs args;
      args.m = shape.m;
      args.ldc = (shape.n + 3) / 4 * 4;
      args.c = nullptr;
      const long long offset = units.output(args, unit).c - args.c;
      ASSERT_EQ(offset, static_cast<long long>(units.slice(unit)) * shape.m * args.ldc);
    }
    for (const int times : covered) ASSERT_EQ(times, 1) << shape.label() << " slices " << slices;
    ASSERT_EQ(units.count(), whole + (units.tiles() - whole) * slices) << shape.label();
  }
}

// A tail split: the first tiles (whole rounds) keep K whole and store into C itself, with C's
// alpha, beta and rows, whether the launch sums in place or another kernel does; the rest are cut
// into slices, slice by slice, tile beside tile, each stored into its slice of the workspace.
TEST(WorkUnits, ATailSplitStoresItsWholeTilesIntoCAndSlicesTheRest) {
  // 2389 x 2048 x 13256 on 128 x 256 tiles: 19 x 8 = 152 tiles, 208 k-blocks; 132 whole.
  WorkUnits units = WorkUnits::of({2389, 2048, 13256}, 128, 256, 64, 6, 132);
  EXPECT_EQ(units.tail_tiles(), 20);
  EXPECT_EQ(units.count(), 132 + 20 * 6);
  EXPECT_EQ(units.slice_blocks(), 35);
  float c[8] = {}, workspace[8] = {};
  unsigned long long words[1] = {};
  units.finish = {cudalabs::GemmOutput{2389, 2048, 1.5f, 0.5f, c, 2050}, words, 2389LL * 2048};
  cudalabs::Bf16GemmArgs args;
  args.m = 2389;
  args.ldc = 2048;
  args.c = workspace;
  args.alpha = 1.0f;
  args.beta = 0.0f;
  const cudalabs::Bf16GemmArgs whole = units.output(args, 131);
  EXPECT_EQ(units.tile(131), 131);
  EXPECT_TRUE(whole.c == c && whole.ldc == 2050 && whole.alpha == 1.5f && whole.beta == 0.5f);
  EXPECT_EQ(units.end_k_block(131), 208);
  // unit 132 + 20 s + t: tile 132 + t, slice s
  EXPECT_EQ(units.tile(132 + 20 * 3 + 7), 139);
  EXPECT_EQ(units.slice(132 + 20 * 3 + 7), 3);
  EXPECT_EQ(units.first_k_block(132 + 20 * 3 + 7), 105);
  EXPECT_EQ(units.end_k_block(units.count() - 1), 208);
  EXPECT_EQ(units.output(args, 132 + 20 * 3 + 7).c, workspace + 3LL * 2389 * 2048);
  // Summed by another kernel (a captured graph: C named, no words), a whole tile still goes to C
  units.finish = {cudalabs::GemmOutput{2389, 2048, 1.5f, 0.5f, c, 2050}};
  EXPECT_EQ(units.output(args, 131).c, c);
  EXPECT_EQ(units.output(args, 132 + 20 * 3 + 7).c, workspace + 3LL * 2389 * 2048);
}

TEST(WorkUnits, RefusesATailSplitWithNoTileLeftToSplit) {
  cudalabs::testing::expect_rejected(
      "152 tiles all whole",
      [] {
        WorkUnits::of({2389, 2048, 13256}, 128, 256, 64, 6, 152);
      },
      "whole_tiles = 152");
  cudalabs::testing::expect_rejected(
      "negative whole tiles",
      [] {
        WorkUnits::of({2389, 2048, 13256}, 128, 256, 64, 6, -1);
      },
      "whole_tiles = -1");
}

// grouped_index is grouped_tile's inverse on grids of any shape, the last group short or not; and
// the summing kernel's count of a tail split's parts (TailParts) gives every split tile its slices
// and a whole tile none (its unit wrote it into C), all of the split tiles at or below the row it
// says the parts start at.
TEST(WorkUnits, NumbersTilesInGroupsBothWaysAndCountsEachTilesParts) {
  for (const int tiles_m : {1, 3, 8, 9, 19, 33})
    for (const int tiles_n : {1, 2, 8, 13}) {
      std::vector<int> seen(static_cast<std::size_t>(tiles_m) * tiles_n, 0);
      for (int tile = 0; tile < tiles_m * tiles_n; ++tile) {
        const int2 at = grouped_tile(tile, tiles_m, tiles_n, 8);
        ASSERT_TRUE(at.x >= 0 && at.x < tiles_m && at.y >= 0 && at.y < tiles_n);
        ++seen[static_cast<std::size_t>(at.x) * tiles_n + at.y];
        ASSERT_EQ(grouped_index(at.x, at.y, tiles_m, tiles_n, 8), tile)
            << tiles_m << " x " << tiles_n;
      }
      for (const int times : seen) ASSERT_EQ(times, 1);
      const int whole = tiles_m * tiles_n / 2;
      const TailParts parts{128, 256, tiles_n, tiles_m, 8, whole, 5};
      int wholes = 0, total = 0;
      for (int tile = 0; tile < tiles_m * tiles_n; ++tile) {  // row by row
        const int count = parts.of(tile);
        ASSERT_TRUE(count == 0 || count == 5);
        wholes += count == 0;
        total += count;
        ASSERT_EQ(count == 0,
                  grouped_index(tile / tiles_n, tile % tiles_n, tiles_m, tiles_n, 8) < whole);
        // the workspace's rows above first_row_with_parts are never read: no poison there
        if (count > 0) ASSERT_GE(tile / tiles_n * 128, parts.first_row_with_parts());
      }
      EXPECT_LT(parts.first_row_with_parts(), tiles_m * 128);
      EXPECT_EQ(wholes, whole);
      EXPECT_EQ(total, (tiles_m * tiles_n - whole) * 5);
    }
}

TEST(WorkUnits, WithKWholeAUnitIsATileStoredIntoC) {
  const WorkUnits units = WorkUnits::of({2100, 3000, 300}, 128, 256, 64, 1);
  EXPECT_EQ(units.count(), 17 * 12);
  float c[4] = {};
  cudalabs::Bf16GemmArgs args;
  args.m = 2100;
  args.ldc = 3000;
  args.c = c;
  for (const int unit : {0, 1, units.count() - 1}) {
    EXPECT_EQ(units.first_k_block(unit), 0);
    EXPECT_EQ(units.end_k_block(unit), 5);
    EXPECT_EQ(units.output(args, unit).c, c);
  }
}

// The random-shapes record's worst lab 11 shapes of this class (a C of 2 to 14 tiles over a K of
// 2872 to 13649, 0.27 to 0.47 of cuBLAS on the H200) and the grading tests' long-K shapes: most of
// the SMs would idle with K whole.
TEST(BestPlan, SplitsKWhereAFewTilesWouldLeaveMostSmsIdle) {
  for (const GemmShape& shape :
       {GemmShape{163, 216, 13649}, GemmShape{686, 120, 13245}, GemmShape{21, 544, 5224},
        GemmShape{139, 792, 2872}, GemmShape{64, 64, 5000}, GemmShape{33, 65, 4099},
        GemmShape{1, 1, 100000}, GemmShape{1024, 1024, 65536}, GemmShape{181, 479, 7144}}) {
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    EXPECT_TRUE(plan.split()) << shape.label() << ": " << plan.describe();
    const WorkUnits units = plan.units(shape);
    EXPECT_GT(units.count(), units.tiles()) << shape.label();
    // More units than SMs would only add rounds, unless each slice is then one k-block.
    EXPECT_LE(units.count(), 2 * kH100Sms) << shape.label() << ": " << plan.describe();
    const double whole = predicted_specialized_us(shape, best_width(shape, kH100Sms), 1, kH100Sms);
    EXPECT_LE(plan.predicted_us, kSplitMustSave * whole) << shape.label();
  }
}

TEST(BestPlan, KeepsKWholeWhereTheTilesFillTheSms) {
  for (const GemmShape& shape : {GemmShape{4096, 4096, 4096}, GemmShape{8192, 8192, 8192},
                                 GemmShape{2048, 2048, 16384}, GemmShape{2100, 3000, 300}}) {
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    EXPECT_FALSE(plan.split()) << shape.label() << ": " << plan.describe();
    EXPECT_EQ(plan.rows, 128) << shape.label() << ": " << plan.describe();
    EXPECT_EQ(plan.width, best_width(shape, kH100Sms)) << shape.label();
  }
  // Every round full at either width: M a multiple of 128 rows per SM, N of 256 columns.
  std::mt19937 random(7);
  std::uniform_int_distribution<int> rounds(1, 4), columns(1, 8), k(1, 100000);
  for (int trial = 0; trial < 500; ++trial) {
    const GemmShape shape{128 * kH100Sms * rounds(random), 256 * columns(random), k(random)};
    EXPECT_FALSE(plan_best(shape, kH100Sms).split()) << shape.label();
  }
}

// Tiles that fill whole rounds of the SMs and part of one more: the tiles of the whole rounds keep
// K whole, and only the last round's (or the last two's) are cut into slices, which then fill the
// SMs (the tail split). 2389 x 2048 x 13256 was 0.60 of cuBLAS on the H100 with K whole on 304
// 128-wide tiles (three rounds, the last a third full).
TEST(BestPlan, SplitsOnlyTheTilesPastTheWholeRounds) {
  for (const GemmShape& shape :
       {GemmShape{2389, 2048, 13256}, GemmShape{2100, 2100, 2000}, GemmShape{2101, 2103, 2001},
        GemmShape{2384, 793, 6983}, GemmShape{2619, 1644, 1446}, GemmShape{747, 6248, 3488},
        GemmShape{6431, 3976, 3448}, GemmShape{3528, 2736, 9304}}) {
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    ASSERT_TRUE(plan.split()) << shape.label() << ": " << plan.describe();
    EXPECT_GT(plan.whole_tiles, 0) << shape.label() << ": " << plan.describe();
    EXPECT_EQ(plan.whole_tiles % kH100Sms, 0) << shape.label() << ": " << plan.describe();
    const WorkUnits units = plan.units(shape);
    // at most the last two rounds' tiles split
    EXPECT_LE(units.tail_tiles(), 2 * kH100Sms) << shape.label() << ": " << plan.describe();
    const double whole = predicted_specialized_us(shape, best_width(shape, kH100Sms), 1, kH100Sms);
    EXPECT_LE(plan.predicted_us, kTailSplitMustSave * whole) << shape.label();
  }
  const SpecializedPlan plan = plan_best({2389, 2048, 13256}, kH100Sms);
  EXPECT_EQ(plan.width, 256);
  EXPECT_EQ(plan.whole_tiles, kH100Sms);
  // The split tiles' sums cost only their share of C: less than a split of every tile's.
  const GemmShape shape{2389, 2048, 13256};
  EXPECT_LT(predicted_specialized_us(shape, 256, 6, kH100Sms, 128, kH100Sms),
            predicted_specialized_us(shape, 256, 6, kH100Sms, 128, 0));
}

// No tail split on tiles narrower than best_width's, which read A more times than the model counts:
// at these shapes the model had a 64- or 128-wide tail split sooner than K whole by 1 to 18 %, and
// the H100 ran it 9 to 33 % slower. Nor one that saves the model less than kTailSplitMustSave.
TEST(BestPlan, TailSplitsNoTilesNarrowerThanKWholesNorForALittle) {
  for (const GemmShape& shape :
       {GemmShape{1100, 904, 4000}, GemmShape{1700, 1304, 3000}, GemmShape{4776, 232, 8392},
        GemmShape{2394, 432, 13936}, GemmShape{3215, 884, 4744}}) {
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    EXPECT_EQ(plan.whole_tiles, 0) << shape.label() << ": " << plan.describe();
  }
  for (const GemmShape& shape : {GemmShape{9574, 5936, 12576}, GemmShape{3000, 3000, 3000}}) {
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    EXPECT_FALSE(plan.split()) << shape.label() << ": " << plan.describe();
  }
}

// A short K: no split of every tile, whose sum would cost more than it saves; a tail split only
// cuts the last partial round's tiles, whose sum is that round's share of C.
TEST(BestPlan, KeepsKWholeWhereKIsShort) {
  std::mt19937 random(8);
  for (int trial = 0; trial < 5000; ++trial) {
    const GemmShape shape = draw_shape(random, 20000, 512);
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    EXPECT_TRUE(!plan.split() || plan.whole_tiles > 0) << shape.label() << ": " << plan.describe();
  }
  // One k-block cannot be split at all.
  EXPECT_FALSE(plan_best({1, 1, 64}, kH100Sms).split());
  EXPECT_FALSE(plan_best({7, 9, 1}, kH100Sms).split());
}

// Whatever it chooses: a tile of the kernel, a count of slices whose slices are all non-empty,
// another plan than K whole on best_width's 128-row tiles only when the model says it saves
// kSplitMustSave (a tail split, only on 128-row tiles at least best_width wide:
// kTailSplitMustSave), and then the fastest plan the model knows, each split's time taken over what
// it must save.
TEST(BestPlan, IsAPlanTheKernelRunsAndTheFastestByTheModel) {
  std::mt19937 random(11);
  std::uniform_int_distribution<int> sms(1, 160);
  for (int trial = 0; trial < 2000; ++trial) {
    const GemmShape shape = draw_shape(random, 20000, 100000);
    const int count = sms(random);
    const SpecializedPlan plan = plan_best(shape, count);
    if (plan.rows == 64)
      ASSERT_TRUE(plan.width == 64 || plan.width == 128) << shape.label();
    else
      ASSERT_TRUE(plan.rows == 128 && (plan.width == 64 || plan.width == 128 || plan.width == 256))
          << shape.label();
    const int k_blocks = (shape.k + 63) / 64;
    ASSERT_TRUE(WorkUnits::slices_fit(k_blocks, plan.slices)) << shape.label();
    EXPECT_DOUBLE_EQ(plan.predicted_us,
                     predicted_specialized_us(shape, plan.width, plan.slices, count, plan.rows,
                                              plan.whole_tiles));
    ASSERT_EQ(plan.whole_tiles % count, 0) << shape.label() << ": whole rounds only";
    if (plan.whole_tiles > 0) ASSERT_LT(plan.whole_tiles, plan.units(shape).tiles());
    const double whole = predicted_specialized_us(shape, best_width(shape, count), 1, count);
    if (!plan.split() && plan.rows == 128) {
      EXPECT_EQ(plan.width, best_width(shape, count)) << shape.label();
      continue;
    }
    const auto charged = [](double us, int whole_tiles) {
      return us / (whole_tiles > 0 ? kTailSplitMustSave : kSplitMustSave);
    };
    const double plan_charged = charged(plan.predicted_us, plan.whole_tiles);
    EXPECT_LE(plan_charged, whole) << shape.label() << " on " << count;
    if (plan.whole_tiles > 0) {
      EXPECT_EQ(plan.rows, 128) << shape.label() << ": " << plan.describe();
      EXPECT_GE(plan.width, best_width(shape, count)) << shape.label() << ": " << plan.describe();
    }
    if (plan.rows == 64) {
      EXPECT_GT(shape.n, kFewColumnsMax) << shape.label();
    }
    for (const int rows : {128, 64}) {
      for (const int width : {64, 128, 256}) {
        if (rows == 64 && (width == 256 || shape.n <= kFewColumnsMax)) continue;
        const int tiles = WorkUnits::of(shape, rows, width, 64, 1).tiles();
        const int most_whole_rounds = (tiles - 1) / count;
        for (int slices = rows == 128 ? 2 : 1; slices <= std::min(k_blocks, count); ++slices) {
          if (!WorkUnits::slices_fit(k_blocks, slices)) continue;
          ASSERT_LE(plan_charged,
                    charged(predicted_specialized_us(shape, width, slices, count, rows), 0))
              << shape.label() << " on " << count << ": " << rows << " x " << width << ", "
              << slices << " slices beats " << plan.describe();
          if (slices == 1 || rows != 128 || width < best_width(shape, count)) continue;
          // the tail splits: the last round's tiles, or the last two rounds'
          for (const int whole_rounds : {most_whole_rounds - 1, most_whole_rounds}) {
            if (whole_rounds < 1) continue;
            const int whole_tiles = whole_rounds * count;
            ASSERT_LE(plan_charged, charged(predicted_specialized_us(shape, width, slices, count,
                                                                     rows, whole_tiles),
                                            whole_tiles))
                << shape.label() << " on " << count << ": " << rows << " x " << width << ", "
                << whole_rounds << " whole rounds, " << slices << " slices beats "
                << plan.describe();
          }
        }
      }
    }
  }
}

// A C of few rows: at these shapes (the random shapes' worst, timed on the H200) a 64-row tile
// with one consumer was faster than every 128-row plan. Large problems keep 128-row tiles, and a
// C of at most kFewColumnsMax columns, where A is nearly all the bytes, never weighs 64-row ones.
TEST(BestPlan, TakesOneConsumerTilesForAFewRows) {
  for (const GemmShape& shape :
       {GemmShape{34, 2576, 3592}, GemmShape{32, 1452, 2232}, GemmShape{162, 952, 1712},
        GemmShape{158, 2752, 4544}, GemmShape{17, 2326, 3664}, GemmShape{242, 364, 2912}}) {
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    EXPECT_EQ(plan.rows, 64) << shape.label() << ": " << plan.describe();
    EXPECT_EQ(plan.units(shape).tiles_m, (shape.m + 63) / 64) << shape.label();
  }
  for (const GemmShape& shape :
       {GemmShape{2173, 520, 1840}, GemmShape{10249, 272, 10072}, GemmShape{1579, 536, 10112},
        GemmShape{4096, 4096, 4096}, GemmShape{8192, 8192, 8192}})
    EXPECT_EQ(plan_best(shape, kH100Sms).rows, 128) << shape.label();
  std::mt19937 random(12);
  for (int trial = 0; trial < 2000; ++trial) {
    GemmShape shape = draw_shape(random, 20000, 100000);
    shape.n = 1 + shape.n % kFewColumnsMax;
    EXPECT_EQ(plan_best(shape, kH100Sms).rows, 128) << shape.label();
  }
}

TEST(BestPlan, PredictsTheSumOfTheSlicesIntoTheTime) {
  // Same units, same rounds: the split's time is the unsplit one's plus the workspace's trip and
  // the last slice's read of its 64 rows of a tile, less the shorter units.
  const GemmShape shape{163, 216, 13649};
  const double one = predicted_specialized_us(shape, 128, 1, kH100Sms);
  const double split = predicted_specialized_us(shape, 128, 31, kH100Sms);
  EXPECT_NEAR(one, 214 * specialized_step_us(128) + unit_store_us(128) + kUnitStartUs, 1e-9);
  EXPECT_NEAR(split,
              7 * specialized_step_us(128) + unit_store_us(128) + kUnitStartUs +
                  cudalabs::in_place_sums_us(31, shape, kDramGBps, 64, 128),
              1e-9);
  // A unit's store: its 128 x width FP32 tile at kUnitStoreGBps.
  EXPECT_NEAR(unit_store_us(256), 4.0 * 128 * 256 / (kUnitStoreGBps * 1e3), 1e-12);
  // A 128-wide step is half a 256-wide one at kNarrowTileRate of its rate, a 64-wide one a quarter
  // at kNarrowestTileRate.
  EXPECT_NEAR(specialized_step_us(128), 0.5 * specialized_step_us(256) / kNarrowTileRate, 1e-12);
  EXPECT_NEAR(specialized_step_us(64), 0.25 * specialized_step_us(256) / kNarrowestTileRate, 1e-12);
  // A 64-row step is half the 128-row one of its width at kOneConsumerTileRate of its rate, and
  // stores half the tile.
  for (const int width : {64, 128}) {
    EXPECT_NEAR(specialized_step_us(width, 64),
                0.5 * specialized_step_us(width) / kOneConsumerTileRate, 1e-12);
    EXPECT_NEAR(unit_store_us(width, 64), 0.5 * unit_store_us(width), 1e-12);
  }
}

// B's rows onto 128-byte lines: the copy is one read and one write of B, the gain a share of the
// kernel's time, so it pays where C is large against B, not for a small GEMM nor one that reads B
// once.
TEST(BestPlan, CopiesBOntoLinesOnlyWhereTheKernelOutlastsTheCopy) {
  const auto b_pays = [](const GemmShape& shape) {
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    return copy_b_to_lines_pays(shape, plan);
  };
  for (const GemmShape& shape :
       {GemmShape{8192, 8200, 8192}, GemmShape{6593, 9160, 9544}, GemmShape{16384, 1000, 1024}}) {
    EXPECT_TRUE(b_pays(shape)) << shape.label();
  }
  for (const GemmShape& shape : {GemmShape{100, 100, 100}, GemmShape{2, 14073, 13664},
                                 GemmShape{2048, 2000, 8192}, GemmShape{1, 1, 100000}}) {
    EXPECT_FALSE(b_pays(shape)) << shape.label();
  }
}

// A's rows onto 128-byte lines, by the same reckoning, on tiles at most 128 wide (where A is half
// of each stage): where the kernel outlasts the copy of A many times over, not where A is most of
// what the GEMM reads, nor on 256-wide tiles.
TEST(BestPlan, CopiesAOntoLinesOnlyWhereTheKernelOutlastsTheCopy) {
  const auto pays = [](const GemmShape& shape) {
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    return copy_a_to_lines_pays(shape, plan);
  };
  for (const GemmShape& shape :
       {GemmShape{1362, 10152, 1640}, GemmShape{700, 24000, 1000}, GemmShape{1000, 10000, 3000}})
    EXPECT_TRUE(pays(shape)) << shape.label() << ": " << plan_best(shape, kH100Sms).describe();
  // 6431 x 3976 x 3448 now runs 256-wide tiles (a tail split), where A off lines cost 0.007
  for (const GemmShape& shape :
       {GemmShape{100, 100, 100}, GemmShape{14073, 2, 13664}, GemmShape{10249, 272, 10072},
        GemmShape{1000, 16384, 1000}, GemmShape{6431, 3976, 3448}})
    EXPECT_FALSE(pays(shape)) << shape.label();
  EXPECT_EQ(plan_best({1000, 16384, 1000}, kH100Sms).width, 256);
  EXPECT_FALSE(copy_a_to_lines_pays({1000, 16384, 1000}, {256, 1, 1e6}));  // 256 wide: never
  EXPECT_TRUE(copy_a_to_lines_pays({1000, 16384, 1000}, {128, 1, 1e6}));
  // One row (column) of tiles reads B (A) once: no copy, however long the kernel
  EXPECT_FALSE(copy_b_to_lines_pays({100, 16384, 16384}, {128, 1, 1e6}));
  EXPECT_TRUE(copy_b_to_lines_pays({200, 16384, 16384}, {128, 1, 1e6}));
  EXPECT_FALSE(copy_a_to_lines_pays({16384, 100, 16384}, {128, 1, 1e6}));
}

// Operands TMA cannot read: the one-launch wgmma rung where the copy's launch would bound a small
// call (one k-block), the copy and the warp-specialized kernel where K is longer or C large; never
// where nothing needs a copy; and a shorter K never turns the choice away from the rung.
TEST(BestPlan, RunsTheOneLaunchRungWhereTheCopysLaunchWouldBoundTheCall) {
  const auto pays = [](const GemmShape& shape) {
    return one_launch_rung_pays(shape, plan_best(shape, kH100Sms), false, true, kH100Sms);
  };
  // As measured (docs/data/history/lab11_small_misaligned_rungs_nvidia-h200.txt): the rung won at
  // the first three, lost with a longer K (the next three) or a large C; at 3105 x 215 x 32 it tied
  // in a stream of calls, and its GPU time alone (a block's start, kWgmmaRungStartUs, from graph
  // replays) puts it ahead of the copy's two launches.
  for (const GemmShape& shape : {GemmShape{50, 628, 40}, GemmShape{46, 384, 50},
                                 GemmShape{133, 220, 56}, GemmShape{3105, 215, 32}})
    EXPECT_TRUE(pays(shape)) << shape.label();
  for (const GemmShape& shape :
       {GemmShape{73, 16, 725}, GemmShape{818, 29, 1792}, GemmShape{464, 602, 144},
        GemmShape{7844, 214, 48}, GemmShape{4095, 4095, 4095}})
    EXPECT_FALSE(pays(shape)) << shape.label();
  const GemmShape short_k{50, 628, 40};
  EXPECT_FALSE(one_launch_rung_pays(short_k, plan_best(short_k, kH100Sms), false, false, kH100Sms));
  std::mt19937 random(21);
  for (int trial = 0; trial < 2000; ++trial) {
    const GemmShape shape = draw_shape(random, 20000, 4096);
    if (!pays(shape)) continue;
    const GemmShape shorter{shape.m, shape.n, std::max(1, shape.k / 2)};
    EXPECT_TRUE(pays(shorter)) << shape.label() << " pays, " << shorter.label() << " not";
    EXPECT_LE(predicted_wgmma_rung_us(shape, kH100Sms),
              std::max(plan_best(shape, kH100Sms).predicted_us, 2.0 * kLaunchUs) + 1e-9)
        << shape.label();
  }
}

TEST(FewColumns, CutsKIntoSlicesTheKernelRunsTheFastestByTheModel) {
  // Every slice a multiple of 8 values (16-byte loads stay aligned), none past what a block's
  // shared memory holds, none empty, K covered, and no count of slices the model has faster up to
  // four rounds of blocks past the fewest, whatever loads the operands allow.
  std::mt19937 random(53);
  for (int trial = 0; trial < 3000; ++trial) {
    GemmShape shape = draw_shape(random, 20000, 1 << 20);
    shape.n = 1 + shape.n % kFewColumnsMax;
    const FewColumnsLoads loads{trial % 2 == 0, trial % 4 < 2};
    ASSERT_TRUE(few_columns_fit(shape)) << shape.label();
    const FewColumnsPlan plan = plan_few_columns(shape, kH100Sms, loads);
    EXPECT_EQ(plan.slice_k % 8, 0) << shape.label();
    EXPECT_LE(plan.slice_k, kFewColumnsMaxSliceK) << shape.label();
    EXPECT_LT(static_cast<long long>(plan.slices - 1) * plan.slice_k, shape.k) << shape.label();
    EXPECT_GE(static_cast<long long>(plan.slices) * plan.slice_k, shape.k) << shape.label();
    EXPECT_DOUBLE_EQ(plan.predicted_us,
                     predicted_few_columns_us(shape, plan.slice_k, kH100Sms, loads))
        << shape.label();
    const int least = cudalabs::ceil_div(shape.k, kFewColumnsMaxSliceK);
    const int most = least + few_columns_extra_slices(kH100Sms, few_columns_row_blocks(shape));
    for (int count = 1; count <= most; ++count) {
      const int slice_k = (cudalabs::ceil_div(shape.k, count) + 7) / 8 * 8;
      if (slice_k > kFewColumnsMaxSliceK) continue;
      EXPECT_LE(plan.predicted_us, predicted_few_columns_us(shape, slice_k, kH100Sms, loads) + 1e-9)
          << shape.label() << " in " << count << " slices";
    }
  }
  // Narrower loads of A or of B: never sooner.
  for (const GemmShape& shape : {GemmShape{5043, 8, 2296}, GemmShape{287, 8, 8528}}) {
    const double wide = plan_few_columns(shape, kH100Sms, {true, true}).predicted_us;
    EXPECT_LT(wide, plan_few_columns(shape, kH100Sms, {false, true}).predicted_us) << shape.label();
    EXPECT_LT(wide, plan_few_columns(shape, kH100Sms, {true, false}).predicted_us) << shape.label();
  }
  // B's rows whole only where they are 8 columns that allow 16-byte loads (as the kernel has it).
  EXPECT_TRUE(few_columns_loads({100, 8, 64}, false, false).wide_b);
  EXPECT_FALSE(few_columns_loads({100, 8, 64}, false, true).wide_b);
  EXPECT_FALSE(few_columns_loads({100, 4, 64}, false, false).wide_b);
  EXPECT_FALSE(few_columns_loads({100, 8, 64}, true, false).wide_a);
  // A few rows over a long K: split, its blocks in one round.
  const FewColumnsPlan gemv = plan_few_columns({287, 1, 8528}, kH100Sms, {true, false});
  EXPECT_TRUE(gemv.split());
  EXPECT_LE(few_columns_row_blocks({287, 1, 8528}) * gemv.slices,
            kFewColumnsBlocksPerSm * kH100Sms);
  // Many rows fill the SMs with K whole, unless K is longer than a block's shared memory.
  EXPECT_FALSE(plan_few_columns({16384, 8, 1000}, kH100Sms, {}).split());
  EXPECT_EQ(plan_few_columns({16384, 8, 4000}, kH100Sms, {}).slices, 4);
}

TEST(FewColumns, RunsForFewColumnsWhereTheModelHasItSooner) {
  const auto pays = [](const GemmShape& shape, bool copy_b) {
    return few_columns_pays(
        shape, plan_best(shape, kH100Sms),
        plan_few_columns(shape, kH100Sms, few_columns_loads(shape, false, copy_b)), false, copy_b);
  };
  // The worst shapes of the random-shapes records: C of 1 to 4 columns over a long K, whose B
  // rows TMA cannot read (copied first), and 8 columns over a K of a few slices, where the
  // tensor cores' tiles took 1.3 times its time (history/lab11_few_columns_s35_nvidia-h200/).
  for (const GemmShape& shape :
       {GemmShape{287, 1, 8528}, GemmShape{130, 4, 2256}, GemmShape{282, 4, 1864}})
    EXPECT_TRUE(pays(shape, true)) << shape.label();
  EXPECT_TRUE(pays({5043, 8, 2296}, false));
  // Not where many rounds of its blocks leave it behind the tensor cores' tiles (1.03 and 1.17
  // times their time at its fastest slices: the same record).
  for (const GemmShape& shape : {GemmShape{16384, 8, 16384}, GemmShape{9313, 8, 9424}})
    EXPECT_FALSE(pays(shape, false)) << shape.label();
  // Never for more columns than the kernel holds, whatever the model says.
  for (const GemmShape& shape : {GemmShape{287, 9, 8528}, GemmShape{5043, 16, 2296}}) {
    EXPECT_FALSE(few_columns_fit(shape)) << shape.label();
    EXPECT_FALSE(pays(shape, true)) << shape.label();
  }
}

TEST(FewRows, CutsKIntoSlicesTheKernelRunsTheFastestByTheModel) {
  // Every slice a multiple of 8 values (a warp's rows keep their offset from 16 bytes), none past
  // what a block's shared memory holds, none empty, K covered, and no count of slices the model has
  // faster up to four rounds of blocks past the fewest.
  std::mt19937 random(5301);
  for (int trial = 0; trial < 3000; ++trial) {
    GemmShape shape = draw_shape(random, 200000, 1 << 20);
    shape.m = 1 + shape.m % kFewRowsMax;
    ASSERT_TRUE(few_rows_fit(shape)) << shape.label();
    const FewRowsPlan plan = plan_few_rows(shape, kH100Sms);
    EXPECT_EQ(plan.slice_k % 8, 0) << shape.label();
    EXPECT_LE(plan.slice_k, kFewRowsMaxSliceK) << shape.label();
    EXPECT_LT(static_cast<long long>(plan.slices - 1) * plan.slice_k, shape.k) << shape.label();
    EXPECT_GE(static_cast<long long>(plan.slices) * plan.slice_k, shape.k) << shape.label();
    EXPECT_DOUBLE_EQ(plan.predicted_us, predicted_few_rows_us(shape, plan.slice_k, kH100Sms))
        << shape.label();
    const int at_once = few_rows_blocks_per_sm(few_rows_kernel_rows(shape.m));
    const int most = cudalabs::ceil_div(shape.k, kFewRowsMaxSliceK) +
                     cudalabs::ceil_div(4 * at_once * kH100Sms, few_rows_col_blocks(shape));
    for (int count = 1; count <= most; ++count) {
      const int slice_k = (cudalabs::ceil_div(shape.k, count) + 7) / 8 * 8;
      if (slice_k > kFewRowsMaxSliceK) continue;
      EXPECT_LE(plan.predicted_us, predicted_few_rows_us(shape, slice_k, kH100Sms) + 1e-9)
          << shape.label() << " in " << count << " slices";
    }
  }
  // The kernel's rows of C: the fewest of 2, 4 and 8 that hold M; more of them never sooner.
  EXPECT_EQ(few_rows_kernel_rows(1), 2);
  EXPECT_EQ(few_rows_kernel_rows(3), 4);
  EXPECT_EQ(few_rows_kernel_rows(5), 8);
  EXPECT_LE(predicted_few_rows_us({2, 14073, 13664}, 976, kH100Sms),
            predicted_few_rows_us({8, 14073, 13664}, 976, kH100Sms));
  // Never faster than reading B once from DRAM.
  const GemmShape gemv{1, 50257, 8192};
  EXPECT_GE(plan_few_rows(gemv, kH100Sms).predicted_us, 2.0 * 50257 * 8192 / (kDramGBps * 1e3));
  EXPECT_EQ(few_rows_col_blocks({1, 248, 64}), 1);
  EXPECT_EQ(few_rows_col_blocks({1, 249, 64}), 2);
}

// A C of a few rows whose B TMA cannot read (copied first, all of B, on the other paths): the
// grading shapes that run the few-rows kernel through `best` (lab11_grading_test.cpp) at their
// alignments, and the random-shapes record's worst; never for more rows than the kernel holds.
TEST(FewRows, RunsForFewRowsWhereTheModelHasItSooner) {
  // C's rows aligned where it must pay (the tile path at its fastest), off where it must not
  const auto pays = [](const GemmShape& shape, int a_bytes, int b_bytes, int c_bytes = 16) {
    const ShortKCopies copies{a_bytes, b_bytes};
    return few_rows_pays(shape, plan_best(shape, kH100Sms), plan_few_rows(shape, kH100Sms),
                         plan_short_k(shape, copies, kH100Sms, h100_room()), copies, c_bytes,
                         kH100Sms);
  };
  EXPECT_TRUE(pays({2, 14073, 13664}, 16, 2));  // N odd: B's rows 2 bytes apart
  EXPECT_TRUE(pays({2, 14073, 1664}, 16, 2));
  EXPECT_TRUE(pays({1, 5001, 3001}, 2, 2));    // every pointer one element off
  EXPECT_TRUE(pays({5, 6000, 2500}, 2, 2));    // lda 2503, ldb 6005
  EXPECT_TRUE(pays({7, 3001, 4100}, 2, 2));    // lda 4101, ldb 3001
  EXPECT_TRUE(pays({1, 200001, 200}, 2, 2));   // one element off, K whole
  EXPECT_TRUE(pays({8, 20000, 1000}, 16, 2));  // ldb 20001
  EXPECT_TRUE(pays({1, 4753, 9441}, 16, 2));   // ldb 4756 (8-byte rows)
  EXPECT_FALSE(plan_few_rows({1, 200001, 200}, kH100Sms).split());
  for (const GemmShape& shape : {GemmShape{9, 14073, 13664}, GemmShape{64, 5001, 3001}}) {
    EXPECT_FALSE(few_rows_fit(shape)) << shape.label();
    EXPECT_FALSE(pays(shape, 2, 2, 4)) << shape.label();
  }
}

// The short-K kernel: where a short K leaves mostly C to write, at the alignments of the grading
// shapes that run it through `best` (lab11_grading_test.cpp), never past kShortKMaxK, and its time
// grows with K, with C, and with each operand's copies narrower.
TEST(ShortK, RunsWhereAShortKLeavesMostlyCToWrite) {
  // C's rows aligned where it must pay (the tile path at its fastest), off where it must not
  const auto pays = [](const GemmShape& shape, int a_bytes, int b_bytes, int c_bytes = 16) {
    const ShortKCopies copies{a_bytes, b_bytes};
    return short_k_pays(shape, plan_best(shape, kH100Sms),
                        plan_short_k(shape, copies, kH100Sms, ClusterRoom{}), copies, c_bytes,
                        kH100Sms);
  };
  EXPECT_TRUE(pays({539, 6046, 24}, 2, 2));    // every operand off by one element
  EXPECT_TRUE(pays({2721, 896, 33}, 2, 16));   // lda 33, B's rows aligned
  EXPECT_TRUE(pays({9476, 362, 18}, 2, 2));    // lda 21, ldb 363
  EXPECT_TRUE(pays({749, 811, 80}, 16, 2));    // ldb 811
  EXPECT_TRUE(pays({130, 257, 100}, 4, 4));    // lda 102, ldb 260
  EXPECT_TRUE(pays({1000, 131, 201}, 4, 4));   // lda 202, ldb 132, pointers 4 bytes off
  EXPECT_TRUE(pays({2000, 322, 248}, 16, 4));  // ldb 322
  for (const GemmShape& shape : {GemmShape{4096, 4096, 4096}, GemmShape{100, 100, kShortKMaxK + 1},
                                 GemmShape{8192, 8192, 1024}})
    EXPECT_FALSE(pays(shape, 2, 2, 4)) << shape.label();
  for (const int a_bytes : {16, 4, 2}) {
    for (const int b_bytes : {16, 4, 2}) {
      const ShortKCopies copies{a_bytes, b_bytes};
      EXPECT_LT(predicted_short_k_us({4096, 4096, 32}, copies, kH100Sms),
                predicted_short_k_us({4096, 4096, 256}, copies, kH100Sms));
      EXPECT_LT(predicted_short_k_us({4096, 2048, 32}, copies, kH100Sms),
                predicted_short_k_us({4096, 4096, 32}, copies, kH100Sms));
      EXPECT_LE(predicted_short_k_us({2048, 2048, 256}, {}, kH100Sms),
                predicted_short_k_us({2048, 2048, 256}, copies, kH100Sms));
    }
  }
  // Copies of two values cost less than copies of one, and more than 16 bytes at a time
  EXPECT_LT(predicted_short_k_us({2048, 2048, 256}, {4, 4}, kH100Sms),
            predicted_short_k_us({2048, 2048, 256}, {2, 2}, kH100Sms));
  EXPECT_LT(predicted_short_k_us({2048, 2048, 256}, {16, 16}, kH100Sms),
            predicted_short_k_us({2048, 2048, 256}, {4, 4}, kH100Sms));
  EXPECT_EQ(short_k_blocks({65, 129, 7}), 4);
}

// C's rows off 16 bytes cost the tiles' epilogue about one more store a round on 256-wide tiles
// (unaligned_c_us), nothing with C aligned: where a short K leaves mostly C to write, that is what
// takes `best` to the short-K kernel (on the H100, 6046 x 6821 x 57 took 125.5 us on tiles and
// 98.2 on the short-K kernel; 2048 x 7303 x 80 52.2 and 45.8).
TEST(ShortK, PaysWhereCsRowsOffSixteenBytesSlowTheTiles) {
  for (const GemmShape& shape : {GemmShape{6046, 6821, 57}, GemmShape{2048, 7303, 80}}) {
    const ShortKCopies copies{shape.k % 2 == 0 ? 4 : 2, 2};  // rows as tightly packed
    const SpecializedPlan plan = plan_best(shape, kH100Sms);
    const ShortKPlan short_k = plan_short_k(shape, copies, kH100Sms, h100_room());
    EXPECT_FALSE(short_k_pays(shape, plan, short_k, copies, 16, kH100Sms)) << shape.label();
    EXPECT_TRUE(short_k_pays(shape, plan, short_k, copies, 4, kH100Sms)) << shape.label();
    EXPECT_EQ(unaligned_c_us(shape, plan, 16, kH100Sms), 0.0);
    EXPECT_GT(unaligned_c_us(shape, plan, 4, kH100Sms), 0.0);
  }
  // a round more (512 tiles of 128 x 256 in 4 rounds of 132 SMs, 544 in 5), a store more; none
  // on 64-wide tiles
  const SpecializedPlan wide{256, 1, 0.0, 128};
  EXPECT_NEAR(unaligned_c_us({4352, 4096, 64}, wide, 8, kH100Sms) -
                  unaligned_c_us({4096, 4096, 64}, wide, 8, kH100Sms),
              unit_store_us(256), 1e-9);
  EXPECT_EQ(unaligned_c_us({4096, 4096, 64}, SpecializedPlan{64, 1, 0.0, 128}, 4, kH100Sms), 0.0);
}

// A small C over a long K (a few tiles: most SMs would idle, each block walking all of K): the
// random-shapes records' worst such shapes, operands 16-byte, 4-byte and 2-byte aligned, which
// `best` runs on the short-K kernel with K cut into a cluster's slices; and shapes whose C has more
// tiles than half the SMs, which it never slices.
TEST(ShortK, CutsALongKUnderASmallCIntoAClustersSlices) {
  for (const GemmShape& shape : {GemmShape{135, 80, 2312}, GemmShape{109, 68, 3133},
                                 GemmShape{114, 54, 3896}, GemmShape{14, 160, 7088}}) {
    for (const ShortKCopies copies :
         {ShortKCopies{16, 16}, ShortKCopies{2, 16}, ShortKCopies{4, 4}}) {
      const ShortKPlan plan = plan_short_k(shape, copies, kH100Sms, h100_room());
      EXPECT_TRUE(plan.sliced()) << shape.label();
      EXPECT_TRUE(short_k_pays(shape, plan_best(shape, kH100Sms), plan, copies, 16, kH100Sms))
          << shape.label() << " " << copies.a_bytes << "/" << copies.b_bytes;
    }
  }
  for (const GemmShape& shape :
       {GemmShape{4096, 4096, 4096}, GemmShape{8192, 8192, 1024}, GemmShape{2048, 7303, 2000},
        GemmShape{1802, 310, 224}, GemmShape{124, 7388, 328}}) {
    const ShortKPlan plan = plan_short_k(shape, {}, kH100Sms, h100_room());
    EXPECT_FALSE(plan.sliced()) << shape.label();
    EXPECT_FALSE(short_k_pays(shape, plan_best(shape, kH100Sms), plan, {}, 4, kH100Sms))
        << shape.label();
  }
}

// Whatever it chooses: K whole only up to kShortKMaxK, slices of whole chunks that leave none
// empty, at most the cluster the GPU allows and only as many clusters as it holds at once, and the
// fastest of them by the model; where no count of slices fits and K is past kShortKMaxK, no plan.
TEST(ShortK, IsAPlanTheKernelRunsAndTheFastestByTheModel) {
  const auto slice_k_of = [](const GemmShape& shape, int slices) {  // whole chunks, as the plan's
    return cudalabs::ceil_div(cudalabs::ceil_div(shape.k, slices), kShortKChunk) * kShortKChunk;
  };
  std::mt19937 random(53);
  std::uniform_int_distribution<int> most(1, kMaxClusterSlices);
  for (int trial = 0; trial < 3000; ++trial) {
    const GemmShape shape = draw_shape(random, 20000, 20000);
    const int max_slices = most(random);
    const ClusterRoom room = trial % 2 ? h100_room(max_slices) : room_of_gpcs({14, 10}, max_slices);
    const ShortKCopies copies{16, trial % 3 == 0 ? 2 : 16};
    const ShortKPlan plan = plan_short_k(shape, copies, kH100Sms, room);
    const long long tiles = short_k_blocks(shape);
    if (plan.slices == 0) {
      EXPECT_GT(shape.k, kShortKMaxK) << shape.label();
      for (int slices = 2; slices <= kMaxClusterSlices; ++slices)
        EXPECT_TRUE(tiles > room.clusters_of(slices) ||
                    cudalabs::ceil_div(shape.k, slice_k_of(shape, slices)) != slices)
            << shape.label() << " " << slices;
      continue;
    }
    EXPECT_LE(plan.slices, max_slices) << shape.label();
    if (!plan.sliced()) {
      EXPECT_LE(shape.k, kShortKMaxK) << shape.label();
      EXPECT_EQ(plan.slice_k, shape.k) << shape.label();
      continue;
    }
    EXPECT_EQ(plan.slice_k % kShortKChunk, 0) << shape.label();
    EXPECT_EQ(cudalabs::ceil_div(shape.k, plan.slice_k), plan.slices) << shape.label();
    EXPECT_DOUBLE_EQ(plan.predicted_us, predicted_sliced_us(shape, copies, plan.slice_k));
    EXPECT_LE(tiles, room.clusters_of(plan.slices)) << shape.label();
    EXPECT_LE(tiles * plan.slices, kH100Sms) << shape.label();
    for (int slices = 2; slices <= max_slices; ++slices) {
      if (tiles > room.clusters_of(slices)) continue;
      EXPECT_LE(plan.predicted_us, predicted_sliced_us(shape, copies, slice_k_of(shape, slices)))
          << shape.label() << " " << slices;
    }
    if (shape.k <= kShortKMaxK) {
      EXPECT_LE(plan.predicted_us, predicted_short_k_us(shape, copies, kH100Sms)) << shape.label();
    }
  }
  // More slices shorten each block's walk where the SMs are idle.
  EXPECT_LT(predicted_sliced_us({135, 80, 2312}, {}, 160),
            predicted_sliced_us({135, 80, 2312}, {}, 1184));
}

// Only as many clusters as the GPU holds at once: 21 tiles of 64 x 128 over K 3592 are cut into
// as many slices as fit 21 clusters on the GPCs, never into clusters the GPCs hold fewer than 21
// of (their blocks would share SMs); a GPU that runs no clusters never slices.
TEST(ShortK, CutsKOnlyIntoClustersTheGpuHoldsAtOnce) {
  const GemmShape shape{34, 2576, 3592};
  ASSERT_EQ(short_k_blocks(shape), 21);
  const ClusterRoom room = h100_room();
  const ShortKPlan plan = plan_short_k(shape, {}, kH100Sms, room);
  ASSERT_TRUE(plan.sliced());
  EXPECT_GE(room.clusters_of(plan.slices), 21);
  EXPECT_LT(room.clusters_of(6), 21);  // 2 on a GPC of 16 SMs, 3 on one of 18
  EXPECT_LT(plan.slices, 6);
  ClusterRoom roomier = room;  // GPCs that held 21 clusters of 8 would get them
  roomier.at_once[8] = 21;
  EXPECT_EQ(plan_short_k(shape, {}, kH100Sms, roomier).slices, 8);
  EXPECT_EQ(plan_short_k(shape, {}, kH100Sms, ClusterRoom{}).slices, 0);
  EXPECT_EQ(room.clusters_of(1), 0);
  EXPECT_EQ(room.clusters_of(kMaxClusterSlices + 1), 0);
  EXPECT_EQ(room.clusters_of(-1), 0);
}

// The copies a row's alignment allows the short-K kernel: 16 bytes, else 4 where rows are 4- or
// 8-byte aligned, else one element.
TEST(ShortK, CopiesAsWideAsTheRowsAllow) {
  EXPECT_EQ(short_k_copy_bytes(16), 16);
  EXPECT_EQ(short_k_copy_bytes(8), 4);
  EXPECT_EQ(short_k_copy_bytes(4), 4);
  EXPECT_EQ(short_k_copy_bytes(2), 2);
  EXPECT_FALSE((ShortKCopies{16, 16}.copy_a()));
  EXPECT_TRUE((ShortKCopies{4, 16}.copy_a()));
  EXPECT_TRUE((ShortKCopies{16, 2}.copy_b()));
}

}  // namespace
}  // namespace lab11
