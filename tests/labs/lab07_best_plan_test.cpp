// Lab 07's `best` plan on the CPU: the model's choices at shapes measured on the H100 (132 SMs),
// the plan's invariants on many shapes, and the typed list of tiles (tiles.h) as the one source of
// the planner's table, the variant table and every plan's launch (no GPU: the kernels are named,
// not run).
#include "labs/07_wide_loads/best_plan.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/07_wide_loads/stream_k.h"
#include "labs/07_wide_loads/tiles.h"

#include "common/gemm_variant.h"
#include "common/launch_utils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lab07 {
namespace {

constexpr int kH100Sms = 132;

std::string tile_at(int m, int n, int k) {
  return plan_best({m, n, k}, kH100Sms).candidate->name;
}

// Whether `plan` shares K out among blocks (split-K or stream-K).
bool shares_out_k(const BestPlan& plan) {
  return plan.splits > 1 || plan.stream_k();
}

// Whether `best` copies the misaligned operands of `shape` (A when pack_a, B when pack_b) before it
// runs: repack_pays between its best plan on the scalar path and its best with 128-bit loads.
bool copies(const cudalabs::GemmShape& shape, bool pack_a, bool pack_b) {
  return repack_pays(plan_best(shape, kH100Sms, false), plan_best(shape, kH100Sms, true), shape,
                     pack_a, pack_b, kH100Sms);
}

// The choices the measurements of
// docs/data/history/lab07_v4-before-shapes_variants_nvidia-h100-80gb-hbm3.txt back.
TEST(BestPlan, PicksTheTileMeasuredFastest) {
  EXPECT_EQ(tile_at(8192, 8192, 8192), "wide_256x128");  // 102.5 % of cuBLAS, 128x256 97.1 %
  EXPECT_EQ(tile_at(4096, 4096, 4096), "wide_256x128");
  // 2.2 waves of big tiles: on the H100 wide_128x64 measured 98.3 % of cuBLAS; on the H200 it and
  // stream-K on wide_256x128 came within 3 % of each other
  // (docs/data/history/lab07_plans_calibration_s21_nvidia-h200/plans_fill.json).
  const BestPlan cube = plan_best({3000, 3000, 3000}, kH100Sms);
  EXPECT_TRUE((cube.candidate->name == std::string("wide_128x64") && !shares_out_k(cube)) ||
              (cube.candidate->name == std::string("wide_256x128") && cube.stream_k()))
      << cube.describe();
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
  // A short K under a wide C, B's rows off 16 bytes: on the H200 the short-K kernel took 9.4 us,
  // wide_128x64 13.7, wide_64x64 18.2
  // (docs/data/history/gemm_short_k_s27_nvidia-h200/call_a/plans07.txt).
  EXPECT_EQ(std::string(plan_best({2721, 891, 24}, kH100Sms, false).candidate->name), "short_k");
}

// A C one tile wide shares no panel of A between blocks: every tile comes from DRAM, and the tile
// 16 deep covers the trip (65536 x 64 x 3200: wide_128x64x16 94.8 % of cuBLAS, wide_128x64 84.0 %,
// docs/data/history/lab07_v7-deeper-tiles_nvidia-h100-80gb-hbm3.txt).
TEST(BestPlan, StagesDeeperWhenEveryTileComesFromDram) {
  EXPECT_EQ(tile_at(65536, 64, 3200), "wide_128x64x16");
  EXPECT_EQ(plan_best({3000, 3000, 3000}, kH100Sms).candidate->bk, 8);  // panels shared: 8 deep
  const TileCandidate* shallow = nullptr;
  for (const TileCandidate& c : best_candidates())
    if (std::string(c.name) == "wide_128x64") shallow = &c;
  ASSERT_NE(shallow, nullptr);
  // The same tiles per SM, but the one-tile-wide C waits on DRAM.
  const double wide_c = predicted_us(*shallow, {8192, 8192, 3200}, 1, kH100Sms) / (8192.0 * 8192);
  const double one_tile_c = predicted_us(*shallow, {65536, 64, 3200}, 1, kH100Sms) / (65536.0 * 64);
  EXPECT_GT(one_tile_c, wide_c * 1.1);
}

TEST(BestPlan, SharesOutALargeKOverASmallC) {
  const BestPlan plan = plan_best({1024, 1024, 65536}, kH100Sms);
  EXPECT_TRUE(shares_out_k(plan)) << plan.describe();
  EXPECT_TRUE(shares_out_k(plan_best({10240, 128, 6400}, kH100Sms)));
  const BestPlan tiny = plan_best({64, 64, 5000}, kH100Sms);
  EXPECT_TRUE(shares_out_k(tiny)) << tiny.describe();
  // Where the largest tile fills half the SMs too: 20480 x 64 x 3200 under stream-K took 237 us on
  // the H200, K whole 281 (on the H100 the split had lost, and a rule kept K whole there:
  // docs/data/history/lab07_plans_calibration_s21_nvidia-h200/plans_fill.json).
  EXPECT_TRUE(shares_out_k(plan_best({20480, 64, 3200}, kH100Sms)));
  // A narrow C streams A once whole: a split does not shorten that (40960 x 3 x 1600).
  EXPECT_FALSE(shares_out_k(plan_best({40960, 3, 1600}, kH100Sms)));
  // It must pay: one tile of a small K is never shared out.
  EXPECT_FALSE(shares_out_k(plan_best({64, 64, 64}, kH100Sms)));
}

// 8869 x 534 x 8488 on 256 x 128 tiles is 175 tiles: no count of slices fills 132 SMs in whole
// rounds, and stream-K's equal shares do, so the model prefers it.
TEST(BestPlan, StreamsKWhereNoSplitFillsTheSms) {
  const BestPlan plan = plan_best({8869, 534, 8488}, kH100Sms);
  EXPECT_TRUE(plan.stream_k()) << plan.describe();
  EXPECT_EQ(plan.stream_blocks, kH100Sms * plan.candidate->blocks_per_sm);
  EXPECT_EQ(plan.splits, 1);
  EXPECT_EQ(plan.slice_k, 8488);
  // 10240 x 128 x 6400 on 120 SMs: 3 slices of 40 tiles fill them exactly, and the split has no
  // pieces to sum beyond its slices.
  const TileCandidate& big = best_candidates().front();
  EXPECT_LT(predicted_us(big, {10240, 128, 6400}, 3, 120),
            predicted_stream_k_us(big, {10240, 128, 6400}, 120));
}

TEST(EvenRuns, RunsCoverEveryIterationOnceInEqualShares) {
  for (int items : {1, 2, 3, 7, 40, 64}) {
    for (int length : {1, 2, 5, 13, 800}) {
      for (int runs : {1, 2, 3, 5, 132, 264}) {
        const EvenRuns even{items, length, runs};
        if (runs > even.total()) continue;
        ASSERT_EQ(even.first_iteration(0), 0);
        ASSERT_EQ(even.first_iteration(runs), even.total());
        std::vector<int> pieces(items, 0);
        for (int r = 0; r < runs; ++r) {
          const long long begin = even.first_iteration(r), end = even.first_iteration(r + 1);
          ASSERT_GE(end - begin, even.total() / runs);  // equal shares, give or take one
          ASSERT_LE(end - begin, even.total() / runs + 1);
          for (long long it = begin; it < end; ++it) ASSERT_EQ(even.run_of(it), r);
          for (int t = static_cast<int>(begin / length); t <= static_cast<int>((end - 1) / length);
               ++t) {
            ASSERT_EQ(r - even.first_run_of(t), pieces[t]);  // ranks count up in run order
            ++pieces[t];
          }
        }
        for (int t = 0; t < items; ++t) {
          ASSERT_EQ(even.pieces_of(t), pieces[t]) << items << " " << length << " " << runs;
          ASSERT_LE(pieces[t], even.max_pieces());
        }
      }
    }
  }
}

// Every block's pieces (for_each_stream_k_piece, which the kernels run) on many share-outs: every
// iteration of every tile computed once, each tile's ranks 0 .. pieces_of - 1 once each, no block
// above run() iterations, and the heads of all tiles in step.
TEST(StreamKPartition, PiecesCoverEveryTileOnceWithinEqualShares) {
  for (int tiles : {1, 2, 3, 5, 32, 40, 80}) {
    for (int per_tile : {1, 2, 7, 13, 248, 800, 8192}) {
      for (int blocks : {1, 2, 3, 11, 132, 264, 528}) {
        const StreamKPartition part{tiles, per_tile, blocks};
        const std::string where = std::to_string(tiles) + " tiles of " + std::to_string(per_tile) +
                                  " on " + std::to_string(blocks);
        std::vector<std::vector<int>> covered(tiles, std::vector<int>(per_tile, 0));
        std::vector<std::vector<int>> ranks(tiles);
        for (int b = 0; b < blocks; ++b) {
          long long work = 0;
          for_each_stream_k_piece(part, b, [&](int tile, int first, int last, int rank) {
            ASSERT_TRUE(tile >= 0 && tile < tiles && 0 <= first && first < last && last <= per_tile)
                << where;
            for (int i = first; i < last; ++i) ++covered[tile][i];
            ranks[tile].push_back(rank);
            work += last - first;
            if (b < part.head_blocks()) {
              ASSERT_EQ(first, b / tiles * part.run()) << where;  // heads move along K in step
              ASSERT_EQ(last - first, part.run()) << where;
            }
          });
          ASSERT_LE(work, part.run()) << where << ", block " << b;
        }
        for (int t = 0; t < tiles; ++t) {
          for (int i = 0; i < per_tile; ++i) ASSERT_EQ(covered[t][i], 1) << where << ", tile " << t;
          std::sort(ranks[t].begin(), ranks[t].end());
          ASSERT_EQ(static_cast<int>(ranks[t].size()), part.pieces_of(t)) << where;
          for (int r = 0; r < part.pieces_of(t); ++r) ASSERT_EQ(ranks[t][r], r) << where;
          ASSERT_LE(part.pieces_of(t), part.max_pieces()) << where;
        }
      }
    }
  }
}

TEST(StreamKPartition, TheHardShapesKeepTheirHeadsInStep) {
  // 1024 x 1024 x 65536 in 256 x 128 x 8 tiles on 132 blocks: 32 tiles of 8192 iterations, runs of
  // 1986: 4 heads of every tile on 128 blocks, and the 32 tails of 248 on the other 4 (8 each).
  const StreamKPartition square{32, 8192, 132};
  EXPECT_EQ(square.run(), 1986);
  EXPECT_EQ(square.heads(), 4);
  EXPECT_EQ(square.tail(), 248);
  EXPECT_EQ(square.tail_blocks(), 4);
  EXPECT_EQ(square.max_pieces(), 6);
  // 10240 x 128 x 6400: 40 tiles of 800 on 132 blocks, runs of 243: 3 heads on 120 blocks, the
  // tails of 71 on 12.
  const StreamKPartition tall{40, 800, 132};
  EXPECT_EQ(tall.heads(), 3);
  EXPECT_EQ(tall.tail(), 71);
  EXPECT_EQ(tall.tail_blocks(), 12);
}

// A C of a few 64 x 64 tiles takes the 32 x 32 tile of 2 warps, whose blocks share an SM eight at a
// time (at 135 x 80 x 2312 and 82 x 191 x 528 on the H200 its fastest plan took 13.1 and 9.5 us
// where wide_64x64's took 16.4 and 12.1: docs/data/history/lab07_small_tiles_s32_nvidia-h200/);
// a large C keeps the large tiles, which read A and B fewer times.
TEST(BestPlan, TakesTheSmallTileForAFewTilesOfC) {
  for (const cudalabs::GemmShape shape :
       {cudalabs::GemmShape{135, 80, 2312}, {82, 191, 528}, {2255, 195, 80}, {369, 91, 1368}})
    EXPECT_EQ(std::string(plan_best(shape, kH100Sms).candidate->name), "wide_32x32")
        << shape.label();
  for (const cudalabs::GemmShape shape :
       {cudalabs::GemmShape{4096, 4096, 4096}, {1000, 1000, 1000}, {2048, 2048, 512}})
    EXPECT_NE(std::string(plan_best(shape, kH100Sms).candidate->name), "wide_32x32")
        << shape.label();
}

// A C a few columns wide is a matrix-vector product: the narrow kernel streams A once, where the
// narrowest tile (64 columns) would compute 61 columns of zeros at N = 3.
TEST(BestPlan, StreamsANarrowC) {
  EXPECT_TRUE(plan_best({40960, 3, 1600}, kH100Sms).candidate->narrow);
  EXPECT_TRUE(plan_best({4096, 16, 4096}, kH100Sms).candidate->narrow);
  EXPECT_TRUE(plan_best({100000, 1, 512}, kH100Sms).candidate->narrow);
  EXPECT_FALSE(plan_best({20480, 64, 3200}, kH100Sms).candidate->narrow);
  EXPECT_FALSE(plan_best({4096, 4096, 4096}, kH100Sms).candidate->narrow);
  // Its time is reading A at DRAM's speed: twice the rows, twice the time.
  const TileCandidate& narrow = best_candidates()[BestTiles::index_of<NarrowColumns>()];
  ASSERT_TRUE(narrow.narrow);
  const double half = predicted_us(narrow, {20480, 3, 1600}, 1, kH100Sms);
  const double whole = predicted_us(narrow, {40960, 3, 1600}, 1, kH100Sms);
  EXPECT_NEAR((whole - narrow.fixed_us) / (half - narrow.fixed_us), 2.0, 0.01);
  // At a short K its blocks' sums of lanes are most of its time, a round of blocks at a time: on
  // the H200 11289 x 37 x 77 took 26.6 us with it and 9.9 with wide_64x64
  // (docs/data/history/gemm_short_k_s27_nvidia-h200/call_a/plans07.txt).
  EXPECT_FALSE(plan_best({11289, 37, 77}, kH100Sms).candidate->narrow);
  EXPECT_FALSE(plan_best({12475, 27, 64}, kH100Sms).candidate->narrow);
  const double one_round = predicted_us(narrow, {32 * 132, 16, 8}, 1, kH100Sms);
  const double four_rounds = predicted_us(narrow, {4 * 32 * 132, 16, 8}, 1, kH100Sms);
  EXPECT_GT(four_rounds - one_round, 5.0);  // three more rounds of sums; their bytes take 0.5 us
}

// A C of a few rows and a long K is the transposed case: the few-rows kernel streams B once, where
// the shortest tile (64 rows) would compute 60 rows of zeros at M = 4 (issue 53's 4 x 123 x 5240
// ran at 0.29 of cuBLAS on wide_64x64 under stream-K, 528 blocks of 2 iterations each).
TEST(BestPlan, StreamsBForAFewRows) {
  for (const cudalabs::GemmShape& shape : {cudalabs::GemmShape{4, 123, 5240},
                                           {43, 104, 13384},
                                           {1, 4064, 2993},
                                           {1, 837, 3024},
                                           {16, 2000, 8000}}) {
    const BestPlan plan = plan_best(shape, kH100Sms);
    EXPECT_TRUE(plan.candidate->few_rows) << shape.label() << ": " << plan.describe();
    EXPECT_FALSE(plan.stream_k());
    // Its loads take any alignment: no copy of a misaligned operand.
    EXPECT_FALSE(copies(shape, true, true));
  }
  // Never past kFewRowsMaxRows rows; at 64 rows a tile of 64 is full, and the model weighs the two.
  for (const cudalabs::GemmShape& shape :
       {cudalabs::GemmShape{65, 123, 5240}, {4096, 4096, 4096}, {1024, 64, 64}}) {
    for (const BestPlan& plan : candidate_plans(shape, kH100Sms))
      EXPECT_FALSE(plan.candidate->few_rows) << shape.label();
  }
  EXPECT_FALSE(
      plan_best({64, 16384, 16384}, kH100Sms).candidate->few_rows);  // a full wave of tiles
  // A few-rows plan for more rows is refused, as launch_plan refuses it.
  const BestPlan few_plan = plan_best({4, 123, 5240}, kH100Sms);
  ASSERT_TRUE(few_plan.candidate->few_rows);
  EXPECT_THROW(describe_plan(few_plan, {65, 123, 5240}), std::invalid_argument);
  EXPECT_NO_THROW(describe_plan(few_plan, {64, 123, 5240}));
  // Its time is reading B at DRAM's speed: twice the columns, twice the time (blocks on every SM).
  const TileCandidate& few = best_candidates()[BestTiles::kSize];
  ASSERT_TRUE(few.few_rows);
  EXPECT_EQ(few.index, BestTiles::kSize);
  const double half = predicted_us(few, {8, 16384, 4096}, 1, kH100Sms);
  const double whole = predicted_us(few, {8, 32768, 4096}, 1, kH100Sms);
  EXPECT_NEAR((whole - few.fixed_us) / (half - few.fixed_us), 2.0, 0.01);
  // A group of 16 rows more reads B once more.
  const double one_group = predicted_us(few, {16, 16384, 4096}, 1, kH100Sms);
  const double four_groups = predicted_us(few, {64, 16384, 4096}, 1, kH100Sms);
  EXPECT_NEAR((four_groups - few.fixed_us) / (one_group - few.fixed_us), 4.0, 0.05);
  EXPECT_EQ(few_rows_group(1), 4);
  EXPECT_EQ(few_rows_group(5), 8);
  EXPECT_EQ(few_rows_group(9), 16);
  EXPECT_EQ(few_rows_group(64), 16);
}

// The plans best chooses from: every kernel unsplit, splits only with slices of 64 or more, the
// narrow kernel only for N <= 64, the few-rows kernel only for M <= 64, the short-K kernel only for
// K <= kShortKMaxK and whole, and best's choice among them.
TEST(BestPlan, CandidatePlansCoverTheChoices) {
  const std::vector<BestPlan> plans = candidate_plans({1024, 1024, 65536}, kH100Sms);
  int unsplit = 0, streamed = 0;
  for (const BestPlan& plan : plans) {
    if (plan.splits == 1 && !plan.stream_k()) ++unsplit;
    if (plan.stream_k()) ++streamed;
    EXPECT_TRUE(plan.splits == 1 || plan.slice_k >= 64) << plan.describe();
    EXPECT_FALSE(plan.candidate->narrow);
    EXPECT_FALSE(plan.candidate->few_rows);
    EXPECT_FALSE(plan.candidate->short_k);
  }
  EXPECT_EQ(unsplit, static_cast<int>(best_candidates().size()) - 3);  // all but those three
  EXPECT_EQ(streamed, unsplit);                                        // each block tile
  const BestPlan chosen = plan_best({1024, 1024, 65536}, kH100Sms);
  EXPECT_TRUE(std::any_of(plans.begin(), plans.end(),
                          [&](const BestPlan& p) { return p.same_as(chosen); }));
  const std::vector<BestPlan> narrow = candidate_plans({40960, 3, 1600}, kH100Sms);
  EXPECT_TRUE(std::any_of(narrow.begin(), narrow.end(),
                          [](const BestPlan& p) { return p.candidate->narrow; }));
  // No split of a K too short for two slices of 64.
  for (const BestPlan& plan : candidate_plans({64, 64, 100}, kH100Sms)) EXPECT_EQ(plan.splits, 1);
  // Stream-K runs no more blocks than there are iterations: one tile of 1 x 1 x 1 has one.
  for (const BestPlan& plan : candidate_plans({1, 1, 1}, kH100Sms))
    EXPECT_FALSE(plan.stream_k()) << plan.describe();
}

// The short-K kernel: a plan of its own for every K up to kShortKMaxK (K whole, never streamed),
// none past it, and launches that say so; its time grows with C's tiles and with K.
TEST(BestPlan, OffersTheShortKKernelForAShortKOnly) {
  const auto short_k_plans = [](const cudalabs::GemmShape& shape) {
    std::vector<BestPlan> found;
    for (const BestPlan& plan : candidate_plans(shape, kH100Sms))
      if (plan.candidate->short_k) found.push_back(plan);
    return found;
  };
  for (const int k : {1, 17, kShortKMaxK}) {
    const std::vector<BestPlan> plans = short_k_plans({1000, 999, k});
    ASSERT_EQ(plans.size(), 1u) << "K = " << k;
    EXPECT_EQ(plans[0].splits, 1);
    EXPECT_FALSE(plans[0].stream_k());
    EXPECT_EQ(plans[0].slice_k, k);
    EXPECT_EQ(plans[0].candidate->index, BestTiles::kSize + 1);
    EXPECT_NO_THROW(describe_plan(plans[0], {1000, 999, k}));
  }
  EXPECT_TRUE(short_k_plans({1000, 999, kShortKMaxK + 1}).empty());
  BestPlan plan = short_k_plans({1000, 999, 64}).front();
  EXPECT_THROW(describe_plan(plan, {1000, 999, kShortKMaxK + 1}), std::invalid_argument);
  plan.splits = 2;
  plan.slice_k = k_slice_length(64, 2);
  EXPECT_THROW(describe_plan(plan, {1000, 999, 64}), std::invalid_argument);
  const cudalabs::KernelLaunch launch =
      describe_plan(short_k_plans({1000, 999, 64}).front(), {1000, 999, 64});
  EXPECT_EQ(launch.grid.x, 16u * 8u);  // 64 x 128 tiles
  EXPECT_EQ(launch.dynamic_shared_bytes, static_cast<std::size_t>(kShortKSharedBytes));
  const TileCandidate& short_k = best_candidates()[BestTiles::kSize + 1];
  ASSERT_TRUE(short_k.short_k);
  EXPECT_LT(predicted_us(short_k, {8192, 8192, 16}, 1, kH100Sms),
            predicted_us(short_k, {8192, 8192, 64}, 1, kH100Sms));
  EXPECT_LT(predicted_us(short_k, {4096, 8192, 16}, 1, kH100Sms),
            predicted_us(short_k, {8192, 8192, 16}, 1, kH100Sms));
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
        if (other.stream_k()) {
          ASSERT_EQ(other.splits, 1);
          ASSERT_EQ(other.slice_k, shape.k);
          ASSERT_GE(other.stream_blocks, 2);
          ASSERT_LE(other.stream_blocks, sms * other.candidate->blocks_per_sm);
          ASSERT_LE(other.stream_blocks, stream_k_iterations(*other.candidate, shape));
        }
        ASSERT_GE(static_cast<long long>(other.slice_k) * other.splits, shape.k);
        ASSERT_LT(static_cast<long long>(other.slice_k) * (other.splits - 1), shape.k);
        ASSERT_GT(other.predicted_us, 0.0);
      }
      ASSERT_GE(plan.splits, 1);
      ASSERT_LE(plan.splits, kMaxSplits);
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
  BestPlan split = plan_best({1024, 1024, 65536}, kH100Sms);
  split.stream_blocks = 0;
  split.splits = 4;
  split.slice_k = k_slice_length(65536, 4);
  EXPECT_NE(split.describe().find("K split 4 ways (16384 each)"), std::string::npos);
  EXPECT_NE(plan_best({8869, 534, 8488}, kH100Sms).describe().find(", stream-K on "),
            std::string::npos);
}

TEST(RepackPays, CopiesMisalignedOperandsOfLargeProblems) {
  // 4096^3 with B one float off: the copy (B read and written once, about 54 us) against the
  // scalar path's 9 % on wide_256x128's 2.7 ms.
  const cudalabs::GemmShape square{4096, 4096, 4096};
  EXPECT_TRUE(copies(square, false, true));
  EXPECT_TRUE(copies(square, true, true));
  // The grading case that exercises the copy on the GPU (lab07_grading_test.cpp).
  EXPECT_TRUE(copies({2048, 2048, 2048}, true, true));
}

TEST(RepackPays, NeverWithoutAMisalignedOperandOrForSmallProblems) {
  const cudalabs::GemmShape square{4096, 4096, 4096};
  EXPECT_FALSE(copies(square, false, false));
  for (const cudalabs::GemmShape small :
       {cudalabs::GemmShape{1, 1, 1}, cudalabs::GemmShape{64, 64, 64},
        cudalabs::GemmShape{131, 67, 69}, cudalabs::GemmShape{256, 256, 64}}) {
    EXPECT_FALSE(copies(small, true, true)) << small.label();
  }
}

TEST(RepackPays, NeverForTheNarrowKernel) {
  // Its loads run as fast at any alignment: 65536 x 3 x 4096 reads A once either way.
  const cudalabs::GemmShape narrow{65536, 3, 4096};
  ASSERT_TRUE(plan_best(narrow, kH100Sms, false).candidate->narrow);
  EXPECT_FALSE(copies(narrow, true, true));
}

TEST(RepackPays, CopiesWhenTheCopyIsCheaperThanTheScalarPath) {
  // Against the model's own terms, on random shapes: whenever the answer is yes, the copy's DRAM
  // time (counted here from the bytes) must stay below what the scalar path adds to the best plan.
  std::mt19937 random(7);
  std::uniform_int_distribution<int> side(1, 12000);
  int copied = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const cudalabs::GemmShape shape{side(random), side(random), side(random)};
    const bool pack_a = trial % 3 != 1, pack_b = trial % 3 != 0;
    if (!copies(shape, pack_a, pack_b)) continue;
    ++copied;
    const double bytes = 4.0 * ((pack_a ? double(shape.m) * shape.k : 0.0) +
                                (pack_b ? double(shape.k) * shape.n : 0.0));
    EXPECT_LT(2.0 * bytes / (2500.0 * 1e3), plan_best(shape, kH100Sms, false).predicted_us -
                                                plan_best(shape, kH100Sms, true).predicted_us)
        << shape.label();
  }
  EXPECT_GT(copied, 50);  // the large ones
}

// The scalar path: each tile at its measured scalar rate, so a plan without 128-bit loads is never
// predicted faster than the best with them, the kernels whose loads take any alignment (narrow,
// few rows) cost the same, and a tile that loses much off alignment (wide_128x64, two float4s of A
// a thread) gives way to one that loses little (6938 x 544 x 911: wide_128x64 measured 0.280 ms,
// wide_128x64x16 0.199 ms on the H200, docs/data/history/lab07_scalar_rates_nvidia-h200.txt).
TEST(ScalarPath, EachTileAtItsScalarRate) {
  std::mt19937 random(11);
  std::uniform_int_distribution<int> side(1, 12000);
  // The fastest prediction among the plans (the chosen one may be slower: a split must save a
  // tenth, which one path's plans may pass and the other's not).
  const auto fastest = [](const cudalabs::GemmShape& shape, bool vector_loads) {
    double us = 1e300;
    for (const BestPlan& plan : candidate_plans(shape, kH100Sms, vector_loads))
      us = std::min(us, plan.predicted_us);
    return us;
  };
  for (int trial = 0; trial < 300; ++trial) {
    const cudalabs::GemmShape shape{side(random), side(random), side(random)};
    EXPECT_GE(fastest(shape, false), fastest(shape, true) * (1 - 1e-12)) << shape.label();
    for (const TileCandidate& c : best_candidates()) {
      const double vector = predicted_us(c, shape, 1, kH100Sms, true);
      const double scalar = predicted_us(c, shape, 1, kH100Sms, false);
      EXPECT_GT(c.scalar_rate, 0.0);
      EXPECT_LE(c.scalar_rate, 1.0);
      // A tile's rounds wait longer for their first tiles on the scalar path (no longer than with
      // 128-bit loads where DRAM bounds both); the given kernels and the narrow kernel read any
      // alignment the same way.
      if (c.narrow || c.few_rows || c.short_k)
        EXPECT_DOUBLE_EQ(scalar, vector) << c.name;
      else
        EXPECT_GE(scalar, vector) << c.name << " " << shape.label();
    }
  }
  EXPECT_NE(plan_best({6938, 544, 911}, kH100Sms, false).candidate->name,
            std::string("wide_128x64"));
}

// The planner's candidates, the `wide_*` and `narrow_columns` variants and the launches all come
// from BestTiles: the same kernels, in the same order, under the same names; the given few-rows
// kernel follows them, no variant of its own.
TEST(BestTiles, AreTheOneSourceOfCandidatesAndVariants) {
  const std::span<const TileCandidate> all_candidates = best_candidates();
  ASSERT_EQ(static_cast<int>(all_candidates.size()), BestTiles::kSize + 2);
  const std::span<const TileCandidate> given = all_candidates.last(2);  // no variant runs them
  EXPECT_TRUE(given[0].few_rows);
  EXPECT_TRUE(given[1].short_k);
  EXPECT_EQ(given[0].index, BestTiles::kSize);
  EXPECT_EQ(given[1].index, BestTiles::kSize + 1);
  const std::span<const TileCandidate> candidates = all_candidates.first(BestTiles::kSize);
  const std::span<const cudalabs::GemmVariant> all = variants();
  std::size_t first = 0;
  while (first < all.size() && std::string(all[first].name) != candidates.front().name) ++first;
  ASSERT_LE(first + candidates.size() + 1, all.size()) << "the kernels of BestTiles are variants";
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    EXPECT_EQ(candidates[i].index, static_cast<int>(i));
    EXPECT_EQ(std::string(all[first + i].name), candidates[i].name);
    EXPECT_EQ(candidates[i].narrow, i + 1 == candidates.size());  // the narrow kernel last
    EXPECT_FALSE(candidates[i].few_rows);
    EXPECT_FALSE(candidates[i].short_k);
  }
  for (const cudalabs::GemmVariant& variant : all)
    for (const TileCandidate& kernel : given) EXPECT_NE(std::string(variant.name), kernel.name);
  EXPECT_EQ(std::string(all[first + candidates.size()].name), "best");
  EXPECT_EQ(BestTiles::index_of<Wide256x128>(), 0);
  EXPECT_EQ(BestTiles::index_of<NarrowColumns>(), BestTiles::kSize - 1);
  EXPECT_EQ(BestTiles::index_of<int>(), -1);
}

// What each plan launches (describe_plan, from which launch_plan and best launch): the kernel of
// the plan's tile in the plan's share-out of K, on the plan's grid. A split-K plan once described
// the whole-K kernel on the whole-K grid; now every plan names the kernel it runs.
TEST(BestPlanLaunch, EveryPlanDescribesTheKernelItRuns) {
  const std::span<const cudalabs::GemmVariant> all = variants();
  auto variant_named = [&](const char* name) -> const cudalabs::GemmVariant& {
    for (const cudalabs::GemmVariant& v : all)
      if (std::string(v.name) == name) return v;
    throw std::logic_error(std::string("no variant ") + name);
  };
  // Kernel of (tile, share-out) -> the first description that named it: one kernel per pair.
  std::map<std::pair<int, int>, const void*> kernel_of;
  std::set<const void*> kernels;
  std::mt19937 random(11);
  std::uniform_int_distribution<int> side(1, 9000);
  std::vector<cudalabs::GemmShape> shapes{{1024, 1024, 65536}, {10240, 128, 6400}, {40960, 3, 1600},
                                          {200, 3, 500},       {33, 65, 4099},     {3, 9000, 700},
                                          {7, 100, 3000}};
  for (int i = 0; i < 60; ++i)
    shapes.push_back({side(random), side(random) / 40 + 1, side(random)});
  for (int i = 0; i < 20; ++i)
    shapes.push_back({side(random), side(random), side(random) / 64 + 1});
  int split = 0, streamed = 0, few_rows = 0, short_k = 0;
  for (const cudalabs::GemmShape& shape : shapes) {
    for (const BestPlan& plan : candidate_plans(shape, kH100Sms)) {
      const TileCandidate& tile = *plan.candidate;
      const cudalabs::KernelLaunch launch = describe_plan(plan, shape);
      ASSERT_NE(launch.kernel, nullptr) << plan.describe();
      EXPECT_EQ(launch.threads_per_block(), tile.warps * 32) << plan.describe();
      const int mode = plan.stream_k() ? 2 : plan.splits > 1 ? 1 : 0;
      if (tile.few_rows) {
        // One block per kFewRowsCols columns and group of rows, K's slices on gridDim.z; no
        // stream-K.
        EXPECT_EQ(launch.grid.x, static_cast<unsigned>(cudalabs::ceil_div(shape.n, kFewRowsCols)));
        EXPECT_EQ(launch.grid.y,
                  static_cast<unsigned>(cudalabs::ceil_div(shape.m, few_rows_group(shape.m))));
        EXPECT_EQ(static_cast<int>(launch.grid.z), plan.splits);
        EXPECT_EQ(mode == 2, false) << plan.describe();
        const int key = 10000 + few_rows_group(shape.m);
        const auto [found, fresh] = kernel_of.try_emplace({key, mode}, launch.kernel);
        EXPECT_EQ(found->second, launch.kernel) << plan.describe() << ": another kernel before";
        if (fresh) {
          EXPECT_TRUE(kernels.insert(launch.kernel).second) << plan.describe();
        }
        few_rows += 1;
        continue;
      }
      if (tile.short_k) {
        // One block per tile of C, K whole, on a 1-D grid: one kernel for every shape.
        EXPECT_EQ(static_cast<long long>(launch.grid.x),
                  static_cast<long long>(cudalabs::ceil_div(shape.m, kShortKRows)) *
                      cudalabs::ceil_div(shape.n, kShortKCols));
        EXPECT_EQ(launch.grid.y * launch.grid.z, 1u);
        EXPECT_EQ(mode, 0) << plan.describe();
        const auto [found, fresh] = kernel_of.try_emplace({20000, mode}, launch.kernel);
        EXPECT_EQ(found->second, launch.kernel) << plan.describe() << ": another kernel before";
        if (fresh) {
          EXPECT_TRUE(kernels.insert(launch.kernel).second) << plan.describe();
        }
        short_k += 1;
        continue;
      }
      const long long tiles = tile.narrow
                                  ? static_cast<long long>(cudalabs::ceil_div(shape.m, tile.bm)) *
                                        cudalabs::ceil_div(shape.n, narrow_chunk(shape.n))
                                  : static_cast<long long>(cudalabs::ceil_div(shape.m, tile.bm)) *
                                        cudalabs::ceil_div(shape.n, tile.bn);
      EXPECT_EQ(launch.grid.y, 1u) << plan.describe();
      EXPECT_EQ(static_cast<long long>(launch.grid.x), mode == 2 ? plan.stream_blocks : tiles)
          << plan.describe() << " on " << shape.label();
      EXPECT_EQ(static_cast<int>(launch.grid.z), plan.splits) << plan.describe();
      if (mode == 0) {
        // K whole: the tile's own variant, as the variant table describes it.
        EXPECT_EQ(launch.kernel, variant_named(tile.name).describe(shape).kernel)
            << plan.describe();
      }
      split += mode == 1;
      streamed += mode == 2;
      // The narrow kernel's instantiation follows its column chunk too.
      const int key = tile.index * 100 + (tile.narrow ? narrow_chunk(shape.n) : 0);
      const auto [found, fresh] = kernel_of.try_emplace({key, mode}, launch.kernel);
      EXPECT_EQ(found->second, launch.kernel) << plan.describe() << ": another kernel before";
      if (fresh) {
        EXPECT_TRUE(kernels.insert(launch.kernel).second)
            << plan.describe() << " names the kernel of another tile or share-out of K";
      }
    }
  }
  EXPECT_GT(split, 0);
  EXPECT_GT(streamed, 0);
  EXPECT_GT(few_rows, 0);
  EXPECT_GT(short_k, 0);
  // A plan for another K is refused, as launch_plan refuses it.
  const BestPlan plan = plan_best({1024, 1024, 65536}, kH100Sms);
  EXPECT_THROW(describe_plan(plan, {1024, 1024, 4096}), std::invalid_argument);
}

}  // namespace
}  // namespace lab07
