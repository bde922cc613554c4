#include "best_plan.h"

#include "common/launch_utils.h"
#include "common/slice_sums.h"
#include "stream_k.h"
#include "tiles.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

namespace lab07 {
namespace {

// The candidates, one per kernel of BestTiles (tiles.h, where each kernel's measured speed and
// fixed cost are written and explained), in the list's order.
template <class... Kernels>
constexpr std::array<TileCandidate, sizeof...(Kernels)> candidates_of(KernelList<Kernels...>) {
  int index = 0;
  return {TileCandidate{index++, Kernels::kNarrow, false, Kernels::kName, Kernels::BM, Kernels::BN,
                        Kernels::BK, Kernels::kWarps, Kernels::kBlocksPerSm, Kernels::kSmGflops,
                        Kernels::kFixedUs, Kernels::kScalarRate}...};
}
// The few-rows kernel (few_rows.cuh), given code that no variant runs. Its time is counted in
// stages (kFewRowsStageUs below), not FFMAs: kSmGflops is unused (0). Its fixed cost, 3.3 us, is
// fitted with the stage costs. Blocks an SM: few_rows_blocks_per_sm (tiles.h), at 16 rows.
constexpr TileCandidate kFewRows{
    BestTiles::kSize,           false, true, "few_rows", 16, kFewRowsCols, 1, kFewRowsWarps,
    few_rows_blocks_per_sm(16), 0.0,   3.3,  1.0};
// What a stage of the few-rows kernel costs the SM that runs it: kFewRowsStageUs, and
// kFewRowsRowStageUs more for each row of its group (8 FFMAs a lane and a shared load a warp).
// Nsight Compute had it bound by issuing instructions, not by DRAM (17 x 2326 x 3664 on an H200:
// DRAM 10 % busy, an instruction issued every 1.8 cycles of a scheduler), and the blocks an SM
// holds at once barely overlap, so an SM's blocks are counted one after the other. Fitted to the
// measured times of its 184 plans (every split) at 32 shapes of 1 to 64 rows (lab07_plans on an
// H200; docs/data/history/lab07_few_rows_stages_nvidia-h200.txt), with fixed_us: 0.20 of their
// times' logarithms off, against 0.26 for the FFMA rate it replaces.
constexpr double kFewRowsStageUs = 0.21;
constexpr double kFewRowsRowStageUs = 0.012;
// The short-K kernel (short_k.cuh), given code that no variant runs, for K <= kShortKMaxK. Its
// kSmGflops is its SM's FFMA rate (K rounded up to 4, as it computes), its fixed cost its start
// and first chunk's trip: fitted with the tiles' costs (tiles.h) to every plan timed on an H200
// (docs/data/history/lab07_plan_fit_s28_nvidia-h200/); they had been 200 GFLOP/s and 7 us, the pair
// that suited the tiles' costs before that fit. It reads any alignment the same way.
constexpr TileCandidate kShortK{BestTiles::kSize + 1,
                                false,
                                false,
                                "short_k",
                                kShortKRows,
                                kShortKCols,
                                kShortKChunk,
                                kShortKThreads / 32,
                                kShortKBlocksPerSm,
                                244.0,
                                3.8,
                                1.0,
                                true};
template <class... Kernels>
constexpr std::array<TileCandidate, sizeof...(Kernels) + 2> all_candidates_of(
    KernelList<Kernels...> list) {
  const auto tiles = candidates_of(list);
  std::array<TileCandidate, sizeof...(Kernels) + 2> all{};
  for (std::size_t i = 0; i < tiles.size(); ++i) all[i] = tiles[i];
  all[tiles.size()] = kFewRows;
  all[tiles.size() + 1] = kShortK;
  return all;
}
constexpr std::array<TileCandidate, BestTiles::kSize + 2> kCandidates =
    all_candidates_of(BestTiles{});
// The narrow kernel is considered up to this width of C (4 column chunks).
constexpr int kNarrowConsideredCols = 4 * kNarrowMaxCols;
// Each of an SM's blocks of the narrow kernel ends by summing its lanes' partial sums, a warp
// shuffle tree for each of its warps' rows and columns, and the SM's shuffles take turns: a round
// of blocks costs this long with a chunk of kNarrowMaxCols columns (in proportion for 4 or 8), on
// top of the reads and FFMAs. Without it the model had 11289 x 37 x 77 at 8 us (26.6 measured, 9.9
// with wide_64x64); fitted to the 82 narrow plans of the H200's plan records, mean |log error|
// 0.34 -> 0.13 (docs/data/history/gemm_short_k_s27_nvidia-h200/).
constexpr double kNarrowSumUs = 2.3;

// A round's blocks wait for their first tiles, longer on the scalar path; a round's last tile of C
// leaves at this rate (the SM's share), its other blocks' stores overlapping the FFMAs. Fitted
// with the tiles' costs (tiles.h: docs/data/history/lab07_plan_fit_s28_nvidia-h200/); the start
// had been 2.5 us either way, the store at kMemoryGBps.
constexpr double kRoundStartUs = 1.4;
constexpr double kScalarRoundStartUs = 1.4 + 1.5;
constexpr double kRoundStoreGBps = 2900.0 / 132.0;
constexpr int kSaturatingWarps = 8;             // two per scheduler keep an SM's FFMA pipes busy
constexpr double kMemoryGBps = 2500.0 / 132.0;  // DRAM bandwidth per SM (H100: about 2.5 TB/s)
// A block staging one tile ahead waits this long for a tile that no other block has brought into
// L2: wide_128x64 (two blocks an SM, 8 deep) ran 65536 x 64 x 3200, C one tile wide, at 307 GFLOP/s
// an SM, one tile of 131 kFLOP per block every 0.85 us
// (docs/data/history/lab07_v7-deeper-tiles_nvidia-h100-80gb-hbm3.txt).
constexpr double kDramRoundTripUs = 0.85;
// A split or stream-K plan must take at most this fraction of the best time with K whole: the
// model's split and stream-K times miss by up to a tenth either way on the H200 (3000^3 under
// stream-K 1,170 us predicted, 1,258 measured; K whole 1,323 and 1,219), and 0.95 let stream-K
// take 6431 x 3976 x 3448 and 10004 x 734 x 6808, 7 % and 3 % slower than K whole
// (docs/data/history/lab07_plans_calibration_s21_nvidia-h200/).
constexpr double kSplitMustSave = 0.9;
constexpr double kRepackLaunchUs = 3.0;  // a copy of a misaligned operand: its launch
// What each stream-K piece costs its block beyond its iterations: the pipeline's fill, the partial
// tile's trip to the workspace and its arrival. Fitted with the rest of the model's choices to
// every plan timed at 64 shapes drawn from the random-shapes distribution (seed 20261201) and 22
// more on an H200: the chosen plan's time over the fastest one's, geometric mean, 1.084 -> 1.058
// with this, kSplitMustSave and no rule of fill below, and 1.048 -> 1.027 at 9 large shapes timed
// after the fit (docs/data/history/lab07_plans_calibration_s21_nvidia-h200/;
// kRoundStartUs there, 2.5, left stream-K chosen at 583 x 331 x 352 in 25.8 us where K split in
// two took 15.7).
constexpr double kStreamPieceUs = 7.0;
// A split's slices are at least kMinSliceK deep. At 128 a mid-size C with a K of a few hundred
// kept its blocks few (583 x 331 x 352: 120 blocks of 4 warps, one an SM, where cuBLAS splits 4
// ways with slices of 88); at 64 the model weighs thinner slices, and at the 18 mid-size shapes
// where the choice moved or nearly did its choices took 1.061 of the fastest plan's time, not 1.086
// (docs/data/history/lab07_thin_slices_s22_nvidia-h200/). A stream-K block's run of K stays at
// least kMinStreamRunK: below it, a run is mostly its piece's fill.
constexpr int kMinSliceK = 64;
constexpr int kMinStreamRunK = 128;

using cudalabs::ceil_div;

// Tiles of bm x bn that cover C.
long long tiles_of(const cudalabs::GemmShape& shape, int bm, int bn) {
  return static_cast<long long>(ceil_div(shape.m, bm)) * ceil_div(shape.n, bn);
}

}  // namespace

std::span<const TileCandidate> best_candidates() {
  return kCandidates;
}

// The columns of C the narrow kernel computes: its column chunk times the chunks.
long long narrow_columns(int n) {
  const int chunk = narrow_chunk(n);
  return static_cast<long long>(ceil_div(n, chunk)) * chunk;
}

// Reading `bytes` from DRAM with `blocks` blocks: an SM's share of the bandwidth per SM they
// occupy.
double dram_us(double bytes, long long blocks, int sms) {
  return bytes / (kMemoryGBps * static_cast<double>(std::min<long long>(blocks, sms)) * 1e3);
}

// One SM's speed on tile c with `resident` blocks on it: an SM of fewer than kSaturatingWarps warps
// issues proportionally less, the scalar path runs at the tile's scalar_rate, and where no panel is
// shared (C one tile wide or tall) every tile's loads come from DRAM, so a block finishes at most
// one tile of BK per round trip.
double sm_gflops_at(const TileCandidate& c, const cudalabs::GemmShape& shape, long long resident,
                    bool vector_loads) {
  const double busy = std::min(1.0, static_cast<double>(resident * c.warps) / kSaturatingWarps);
  double sm_gflops = c.sm_gflops * busy * (vector_loads ? 1.0 : c.scalar_rate);
  if (ceil_div(shape.n, c.bn) == 1 || ceil_div(shape.m, c.bm) == 1) {
    const double tile_step_flops = 2.0 * c.bm * c.bn * c.bk;
    sm_gflops = std::min(sm_gflops, resident * tile_step_flops / (kDramRoundTripUs * 1e3));
  }
  return sm_gflops;
}

// A workspace of `slices` partial Cs of candidate c's regions (a tile; the few-rows kernel's group
// of rows by kFewRowsCols; the narrow kernel's block of rows by its column chunk) through memory,
// summed by the last part of each region to arrive, in the same launch (split_k.cuh).
double workspace_us(const TileCandidate& c, double slices, const cudalabs::GemmShape& shape,
                    int sms) {
  const double rows = c.few_rows ? few_rows_group(shape.m) : c.bm;
  const double cols = c.few_rows ? kFewRowsCols : c.narrow ? narrow_chunk(shape.n) : c.bn;
  return cudalabs::in_place_sums_us(slices, shape, kMemoryGBps * sms,
                                    std::min<double>(rows, shape.m),
                                    std::min<double>(cols, shape.n));
}

double predicted_us(const TileCandidate& c, const cudalabs::GemmShape& shape, int splits, int sms,
                    bool vector_loads) {
  const int slice_k = splits > 1 ? k_slice_length(shape.k, splits) : shape.k;
  const int slices = ceil_div(shape.k, slice_k);
  const double m = shape.m, n = shape.n, k = shape.k;
  double us = 0.0;
  if (c.few_rows) {
    // B read once per group of rows (the groups of a column chunk run together, so mostly once from
    // DRAM: counted each time, the floor is a bound); each SM's blocks run their stages in turn.
    const int group = few_rows_group(shape.m);
    const long long row_groups = ceil_div(shape.m, group);
    const long long chunks = ceil_div(shape.n, kFewRowsCols);
    const long long blocks = chunks * row_groups * slices;
    const double stages = ceil_div(slice_k, kFewRowsStageK);
    const double stage_us = kFewRowsStageUs + kFewRowsRowStageUs * group;
    us = std::max(
        dram_us(4.0 * (k * n * static_cast<double>(row_groups) + m * k + m * n), blocks, sms),
        static_cast<double>(ceil_div(blocks, static_cast<long long>(sms))) * stages * stage_us);
  } else if (c.short_k) {
    // Each SM's blocks share its FFMA rate (K rounded up to 4, as the kernel computes); C's writes
    // and the reads of A and B are a floor.
    const long long blocks = tiles_of(shape, c.bm, c.bn);
    const double per_sm = static_cast<double>(ceil_div(blocks, static_cast<long long>(sms)));
    const double k4 = static_cast<double>(ceil_div(shape.k, 4) * 4);
    us = std::max(per_sm * 2.0 * c.bm * c.bn * k4 / (c.sm_gflops * 1e3),
                  dram_us(4.0 * (m * k + k * n + m * n), blocks, sms));
  } else if (c.narrow) {
    const long long columns = narrow_columns(shape.n);
    const long long chunks = ceil_div(columns, static_cast<long long>(c.bn));  // reads of A
    const long long blocks = ceil_div(shape.m, c.bm) * chunks * slices;
    const double flops = 2.0 * m * k * static_cast<double>(columns);
    const double busy_sms = static_cast<double>(std::min<long long>(blocks, sms));
    const double sums_us = static_cast<double>(ceil_div(blocks, static_cast<long long>(sms))) *
                           kNarrowSumUs * narrow_chunk(shape.n) / kNarrowMaxCols;
    us = std::max(dram_us(4.0 * (m * k * static_cast<double>(chunks) + k * n + m * n), blocks, sms),
                  flops / (c.sm_gflops * 1e3 * busy_sms)) +
         sums_us;
  } else {
    const long long tiles = tiles_of(shape, c.bm, c.bn) * slices;
    const long long per_sm = ceil_div(tiles, static_cast<long long>(sms));
    const long long resident = std::min<long long>(per_sm, c.blocks_per_sm);
    const double sm_gflops = sm_gflops_at(c, shape, resident, vector_loads);
    const double tile_flops =
        2.0 * c.bm * c.bn * static_cast<double>(ceil_div(slice_k, c.bk) * c.bk);
    const double round_us = resident * tile_flops / (sm_gflops * 1e3);
    // Each round starts by waiting for its first tiles and ends by writing a tile of C (the stores
    // of the other blocks of the round overlap its FFMAs): at a small K, most of the round.
    const double store_us = 4.0 * c.bm * c.bn / (kRoundStoreGBps * 1e3);
    const double start_us = vector_loads ? kRoundStartUs : kScalarRoundStartUs;
    const double compute_us =
        static_cast<double>(ceil_div(per_sm, static_cast<long long>(c.blocks_per_sm))) *
        (start_us + round_us + store_us);
    us = std::max(compute_us, dram_us(4.0 * (m * k + k * n + m * n), tiles, sms));
  }
  us += c.fixed_us;
  if (slices > 1) us += workspace_us(c, slices, shape, sms);
  return us;
}

long long stream_k_iterations(const TileCandidate& c, const cudalabs::GemmShape& shape) {
  return tiles_of(shape, c.bm, c.bn) * ceil_div(shape.k, c.bk);
}

// Blocks a stream-K plan runs: those the SMs hold at once, but no more than leave each a run of
// kMinStreamRunK of K (at least one iteration): 147 x 67 x 2472 on 528 blocks of
// wide_64x64 gave each block 2 iterations (32 of K), each paying a tile's fill and a partial tile's
// trip through the workspace for 32 multiply-adds an output (0.31 of cuBLAS on an H200, issue 53).
int stream_k_blocks(const TileCandidate& c, const cudalabs::GemmShape& shape, int sms) {
  const long long min_run = std::max(1, kMinStreamRunK / c.bk);
  return static_cast<int>(
      std::min<long long>(static_cast<long long>(sms) * c.blocks_per_sm,
                          std::max(1LL, stream_k_iterations(c, shape) / min_run)));
}

double predicted_stream_k_us(const TileCandidate& c, const cudalabs::GemmShape& shape, int sms,
                             bool vector_loads) {
  const long long tiles = tiles_of(shape, c.bm, c.bn);
  const int blocks = stream_k_blocks(c, shape, sms);
  const StreamKPartition part{static_cast<int>(tiles), ceil_div(shape.k, c.bk), blocks};
  const long long resident =
      std::min<long long>(ceil_div(blocks, sms), static_cast<long long>(c.blocks_per_sm));
  const double step_us =
      resident * 2.0 * c.bm * c.bn * c.bk / (sm_gflops_at(c, shape, resident, vector_loads) * 1e3);
  double run_us = step_us * static_cast<double>(part.run());
  // The tails are not in step: a block of tails reads panels no other block is reading, from DRAM,
  // one tile per round trip at most.
  if (part.tail() > 0) run_us = std::max(run_us, kDramRoundTripUs * part.run());
  // Each piece fills the pipeline: one for a head block, up to ceil(run / tail) + 1 for a block of
  // tails, where another block on the SM hides part of it. Its partial tile goes to L2 (the
  // workspace fits), behind the next piece's loads.
  const int pieces = part.tail() > 0 ? ceil_div(part.run(), part.tail()) + 1 : 1;
  const double m = shape.m, n = shape.n, k = shape.k;
  double us = std::max(run_us + pieces * kStreamPieceUs / static_cast<double>(resident),
                       dram_us(4.0 * (m * k + k * n + m * n), blocks, sms)) +
              c.fixed_us;
  // The pieces' partial tiles go through the workspace like a split's slices: the heads, and each
  // tail cut once more for every run of tails that starts inside it.
  const double pieces_per_tile =
      part.heads() +
      (part.tail() > 0 ? 1.0 + static_cast<double>(part.tail_blocks()) / static_cast<double>(tiles)
                       : 0.0);
  return us + workspace_us(c, pieces_per_tile, shape, sms);
}

std::vector<BestPlan> candidate_plans(const cudalabs::GemmShape& shape, int sms,
                                      bool vector_loads) {
  std::vector<BestPlan> plans;
  for (const TileCandidate& c : kCandidates) {
    if (c.narrow && shape.n > kNarrowConsideredCols) continue;
    if (c.few_rows && shape.m > kFewRowsMaxRows) continue;
    if (c.short_k) {  // K whole: it is short
      if (shape.k <= kShortKMaxK)
        plans.push_back({&c, 1, shape.k, 0, predicted_us(c, shape, 1, sms, vector_loads), sms});
      continue;
    }
    for (int splits : {1, 2, 3, 4, 6, 8, 12, 16, 24, kMaxSplits}) {
      const int slice_k = splits == 1 ? shape.k : k_slice_length(shape.k, splits);
      if (splits > 1 && (slice_k < kMinSliceK || ceil_div(shape.k, slice_k) != splits))
        continue;  // slices too thin, or rounding left fewer of them
      plans.push_back(
          {&c, splits, slice_k, 0, predicted_us(c, shape, splits, sms, vector_loads), sms});
    }
    if (!c.narrow && !c.few_rows && stream_k_blocks(c, shape, sms) > 1)
      plans.push_back({&c, 1, shape.k, stream_k_blocks(c, shape, sms),
                       predicted_stream_k_us(c, shape, sms, vector_loads), sms});
  }
  return plans;
}

BestPlan plan_best(const cudalabs::GemmShape& shape, int sms, bool vector_loads) {
  const std::vector<BestPlan> plans = candidate_plans(shape, sms, vector_loads);
  BestPlan best;
  for (const BestPlan& plan : plans) {
    if (plan.splits == 1 && !plan.stream_k() &&
        (best.candidate == nullptr || plan.predicted_us < best.predicted_us))
      best = plan;
  }
  // A split or stream-K plan must save kSplitMustSave of the best plan with K whole. There was a
  // rule of fill too (no split where the largest tile filled half the SMs: on the H100, 20480 x 64
  // x 3200 split measured 92.7 % of cuBLAS against 107.3 % whole,
  // docs/data/history/lab07_v5-split-probe_nvidia-h100-80gb-hbm3.txt); on the H200 it kept K whole
  // where a split or stream-K was up to 1.3x faster (7888 x 567 x 13224, 8869 x 534 x 8488,
  // 6612 x 992 x 7120: docs/data/history/lab07_plans_calibration_s21_nvidia-h200/), so the model's
  // DRAM floor alone now stands for what a split does not shorten.
  const double unsplit_us = best.predicted_us;
  for (const BestPlan& plan : plans) {
    if ((plan.splits > 1 || plan.stream_k()) && plan.predicted_us < kSplitMustSave * unsplit_us &&
        plan.predicted_us < best.predicted_us)
      best = plan;
  }
  return best;
}

double repack_us(const cudalabs::GemmShape& shape, bool pack_a, bool pack_b, int sms) {
  const double a_bytes = pack_a ? 4.0 * shape.m * static_cast<double>(shape.k) : 0.0;
  const double b_bytes = pack_b ? 4.0 * shape.k * static_cast<double>(shape.n) : 0.0;
  return 2.0 * (a_bytes + b_bytes) / (kMemoryGBps * sms * 1e3) +
         kRepackLaunchUs * ((pack_a ? 1 : 0) + (pack_b ? 1 : 0));
}

bool repack_pays(const BestPlan& scalar_plan, const BestPlan& vector_plan,
                 const cudalabs::GemmShape& shape, bool pack_a, bool pack_b, int sms) {
  if ((!pack_a && !pack_b) || scalar_plan.candidate == nullptr || vector_plan.candidate == nullptr)
    return false;
  return repack_us(shape, pack_a, pack_b, sms) + vector_plan.predicted_us <
         scalar_plan.predicted_us;
}

std::string BestPlan::describe() const {
  std::ostringstream text;
  text << candidate->name;
  if (splits > 1) text << ", K split " << splits << " ways (" << slice_k << " each)";
  if (stream_k()) text << ", stream-K on " << stream_blocks << " blocks";
  text << ", predicted " << std::lround(predicted_us) << " us";
  return text.str();
}

}  // namespace lab07
