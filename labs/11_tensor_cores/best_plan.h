/// @file labs/11_tensor_cores/best_plan.h
/// @brief How `best` runs the warp-specialized kernel for a shape: its tile width (best_width.h),
/// its rows (128, or 64 with one consumer where C has few rows) and, where a C of few tiles over a
/// long K would leave most SMs idle, how many slices of K its persistent blocks share out
/// (work_units.h), from a model of the busiest SM's time; and where a small GEMM's operands would
/// need a copy before TMA can read them, whether the one-launch wgmma rung is done sooner
/// (one_launch_rung_pays); for a C of at most 8 columns, whether the few-columns kernel, which
/// reads A once in place (few_columns.cuh), is (few_columns_pays); and for a short K, or a long K
/// under a C of few tiles, whether the short-K kernel, which reads any alignment and writes C in
/// whole rows (short_k.cuh), is (short_k_pays), K whole or cut into a cluster's slices
/// (plan_short_k).
///
/// The model: a persistent block runs units of (tile, slice of K) in rounds, so the kernel takes
/// the busiest SM's rounds, ceil(units / SMs), times one unit's time: its slice's k-blocks at the
/// SM's measured rate for the tile's width, plus what starting a unit costs. No kernel beats DRAM:
/// reading A and B once and writing C once is a floor. A split adds its partial Cs' trip through
/// memory and the last slice's read of its region of them (common/slice_sums.h; the launch sums
/// them itself, unit_finish.cuh). K is split only where that saves
/// kSplitMustSave of the time with K whole; a C that already fills the SMs, or a short K, gains
/// less than the sum costs. Pure host code: the CPU tests check the plans.
#pragma once

#include "best_width.h"
#include "common/gemm_types.h"
#include "common/launch_utils.h"
#include "common/slice_sums.h"
#include "tiles.h"
#include "work_units.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace lab11 {

/// One SM's rate on the warp-specialized kernel's 128 x 256 tiles, GFLOP/s: `warp_specialized` at
/// 8192^3 on the H100, 664,479 GFLOP/s over its 132 SMs (docs/data/results/lab11_*.json). The
/// narrower tiles run at specialized_tile_rate of it.
inline constexpr double kSpecializedSmGflops = 664479.0 / 132.0;

/// DRAM's bandwidth, GB/s: lab 00's copy kernel on the H100, 2 GiB moved in 0.7627 ms
/// (docs/data/results/lab00_*.json).
inline constexpr double kDramGBps = 2.0 * 1024 * 1024 * 1024 / 0.7627e-3 / 1e9;

/// What a unit of work costs beyond its k-blocks and its store (unit_store_us): its first stage's
/// wait for the copy engine. Fitted with kUnitStoreGBps (below) to `best`'s GPU time.
inline constexpr double kUnitStartUs = 1.0;

/// The rate at which a unit's consumers store its 128 x width FP32 tile, GB/s an SM: the stores
/// follow the unit's k-blocks (the next unit's wgmmas start after them), so they add to its time.
/// Fitted to `best`'s GPU time at the 240 shapes of two random-shapes records on the H200 (the
/// path each took: mean |log error| 0.184 -> 0.134, the same on either seed;
/// docs/data/history/lab11_model_vs_gpu_s28/). It moves 28 of those shapes, 25 to the short-K
/// kernel; in the random-shapes program the ratio to cuBLAS rose at 19 and fell at 9 (1.046x on
/// geometric mean), mostly from fewer launches: where K passes about 80 under a large C the short-K
/// kernel's model is optimistic (docs/data/history/lab11_unit_store_s29_nvidia-h200/).
inline constexpr double kUnitStoreGBps = 30.0;

/// What B's rows off 128-byte lines cost the warp-specialized kernel on tiles at most 128 wide, as
/// a share of its time: each 128-byte row of a stage's panel then spans two lines. Near the median
/// of the kernel's time saved with B's rows on lines (the same values, the rows padded), K whole on
/// the H100 at six shapes, 0.07 to 0.32, median 0.235 (4096 x 4104 x 4096 0.28, 1362 x 10152 x
/// 1640 0.28, 6431 x 3976 x 3448 0.32, 10249 x 272 x 10072 0.07); at every one the launch that
/// copies B first was the sooner (docs/data/history/lab11_tail_split_s43_nvidia-h100/,
/// bench_lines). It was 0.12.
inline constexpr double kOffLineBRowsCost = 0.23;
/// The same on 256-wide tiles, where the saving was either 0.21 to 0.30 (4096 x 4104 x 4096, 1362 x
/// 10152 x 1640, 6431 x 3976 x 3448) or 0.01 to 0.05 (1579 x 536 x 10112, 10249 x 272 x 10072,
/// 3454 x 9328 x 3840, where the copy lost 28 us of 393): a share between the two, which the copy's
/// own cost then decides (the same record).
inline constexpr double kOffLineBRowsWideCost = 0.10;

/// The host's cost of one launch on a stream of back-to-back work, microseconds: `best` with one
/// kernel enqueued in 4.5 to 4.8 us a call where it launched one kernel (6158x376x24, 151x13536x16,
/// 5892x1056x128: host_us_per_launch in docs/data/history/gemm_random_shapes_s10/callA_*), so a
/// stream of small calls goes no faster than that times its launches.
inline constexpr double kLaunchUs = 4.6;

/// The wgmma rung (step 4: cp.async stages that copy any alignment element by element, one launch)
/// where a block has its SM to itself: what a block takes beyond its k-blocks, and each k-block,
/// microseconds, on the GPU. Each k-block: the slope of its times at twelve small shapes whose A or
/// B TMA cannot read (8 us with one k-block, 11 with two, 14 with three, 40 with twelve, 90 with
/// twenty-eight: docs/data/history/lab11_small_misaligned_rungs_nvidia-h200.txt). What a block
/// takes beyond them: those times are a stream of calls, the host's enqueueing in them, so the
/// start is the GPU's alone, the median over the 16 calls of the random-shapes records at c1253a3
/// that ran the rung (one k-block each, replayed in a graph: 4.5 to 6.7 us, less the k-block and
/// the writes of C; docs/data/results/gemm_random_shapes_times_*.json and history/
/// gemm_random_shapes_seed8444672377437012093-c1253a3_times_*). It was 5.0, fitted to the stream.
inline constexpr double kWgmmaRungStartUs = 2.4;
/// The wgmma rung's time for each k-block of a block (above).
inline constexpr double kWgmmaRungStepUs = 3.0;

/// A split must take at most this fraction of the time with K whole. It was 0.9 while the sum's
/// costs were estimates; with each slice's cost fitted (common/slice_sums.h, kInPlaceSliceUs), the
/// model's faster plan is the one: at 0.9, 158 x 2752 x 4544, 1299 x 100 x 1536 and 162 x 952 x
/// 1712 kept K whole in 26.5, 13.0 and 11.0 us of GPU time where their splits had taken 19.4, 11.8
/// and 10.0 (docs/data/history/gemm_random_shapes_s18/README.md).
inline constexpr double kSplitMustSave = 1.0;

/// A tail split (work_units.h) must take at most this fraction of the time with K whole. Its
/// whole rounds are the K-whole plan's own, so it saves part of one round, and where the model
/// says less than that it is noise: on the H100, tail splits predicted 0.06 to 0.6 % sooner ran
/// 0.2 % slower to 1.1 % sooner (9574 x 5936 x 12576, 3000^3, 16384 x 16384 x 1024), and of
/// those predicted 2.5 to 4 % sooner, 2100 x 2104 x 2000 ran 3.8 % sooner and 2619 x 1644 x 1446
/// 3 % slower (docs/data/history/lab11_tail_split_s43_nvidia-h100/, bench_tail).
inline constexpr double kTailSplitMustSave = 0.98;

/// What `best` runs on Hopper for one shape.
struct SpecializedPlan {
  int width = 256;            ///< the tile's columns: 256 (`warp_specialized`), 128 or 64
  int slices = 1;             ///< slices of K (work_units.h): 1 = K whole
  double predicted_us = 0.0;  ///< the model's time
  int rows = 128;             ///< the tile's rows: 128 (two consumers) or 64 (one)
  int whole_tiles = 0;        ///< split, the tiles that keep K whole (work_units.h: tail split)

  /// Whether K is split (a workspace, then the summing kernel).
  bool split() const { return slices > 1; }
  /// The units the plan's launch walks for `shape`.
  WorkUnits units(const cudalabs::GemmShape& shape) const {
    return WorkUnits::of(shape, rows, width, SwizzledTile::BK, slices, whole_tiles);
  }
  /// e.g. "128 x 128 tiles, K in 33 slices, predicted 9 us", or "128 x 256 tiles, 132 K whole,
  /// the rest's K in 6 slices, predicted 233 us".
  std::string describe() const {
    std::string text = std::to_string(rows) + " x " + std::to_string(width) + " tiles";
    if (split() && whole_tiles > 0)
      text += ", " + std::to_string(whole_tiles) + " K whole, the rest's K in " +
              std::to_string(slices) + " slices";
    else if (split())
      text += ", K in " + std::to_string(slices) + " slices";
    return text + ", predicted " + std::to_string(static_cast<long long>(predicted_us + 0.5)) +
           " us";
  }
};

/// The model's time of one k-block (64 of K) of a `rows` x `width` tile on one SM, microseconds.
inline double specialized_step_us(int width, int rows = 128) {
  const double rate = kSpecializedSmGflops * specialized_tile_rate(width, rows);
  return 2.0 * rows * width * SwizzledTile::BK / (rate * 1e3);
}

/// The model's time of a unit's store of its `rows` x `width` FP32 tile (kUnitStoreGBps),
/// microseconds.
inline double unit_store_us(int width, int rows = 128) {
  return 4.0 * rows * width / (kUnitStoreGBps * 1e3);
}

/// The model's time of the warp-specialized kernel on `shape` with tiles `rows` x `width` and K in
/// `slices` slices (WorkUnits::slices_fit must hold), the first `whole_tiles` tiles K whole (a
/// multiple of `sms`: whole rounds), on a GPU of `sms` SMs, microseconds: the busiest SM's rounds
/// of units, each its slice's k-blocks (the longest slice's, or all of K), its store
/// (unit_store_us) and kUnitStartUs, at least the time to read A and B once from DRAM and to write
/// the whole tiles' C, plus the sum of the split tiles' slices when K is split (in_place_sums_us
/// over their share of C: a consumer's 64 rows of a tile are a region).
inline double predicted_specialized_us(const cudalabs::GemmShape& shape, int width, int slices,
                                       int sms, int rows = 128, int whole_tiles = 0) {
  const WorkUnits units = WorkUnits::of(shape, rows, width, SwizzledTile::BK, slices, whole_tiles);
  const double store_us = unit_store_us(width, rows) + kUnitStartUs;
  const double step_us = specialized_step_us(width, rows);
  const double whole_rounds = static_cast<double>(cudalabs::ceil_div(units.whole_tiles, sms));
  const double rounds =
      static_cast<double>(cudalabs::ceil_div(units.count() - units.whole_tiles, sms));
  const double units_us = whole_rounds * (units.k_blocks * step_us + store_us) +
                          rounds * (units.slice_blocks() * step_us + store_us);
  const double m = shape.m, n = shape.n, k = shape.k;
  // the share of C the split tiles cover (all of it, K whole: their C is written directly too)
  const double split_share = static_cast<double>(units.tail_tiles()) / units.tiles();
  // A and B in BF16 read once; C written once in FP32 where no sum writes it
  const double c_bytes = 4.0 * m * n * (units.split() ? 1.0 - split_share : 1.0);
  const double memory_us = (2.0 * (m * k + k * n) + c_bytes) / (kDramGBps * 1e3);
  double us = std::max(units_us, memory_us);
  if (units.split()) {
    const cudalabs::GemmShape split_part{std::max(1, static_cast<int>(m * split_share + 0.5)),
                                         shape.n, shape.k};
    us += cudalabs::in_place_sums_us(slices, split_part, kDramGBps, std::min(64, shape.m),
                                     std::min(width, shape.n));
  }
  return us;
}

/// The time to copy A (when `copy_a`) and B (when `copy_b`) of `shape` at DRAM's rate, each BF16
/// element read and written once; the copy's launch is the caller's.
inline double operand_copy_us(const cudalabs::GemmShape& shape, bool copy_a, bool copy_b) {
  const double m = shape.m, n = shape.n, k = shape.k;
  return 2.0 * 2.0 * ((copy_a ? m * k : 0.0) + (copy_b ? k * n : 0.0)) / (kDramGBps * 1e3);
}

/// Whether copying B into rows 128 bytes apart pays for `shape` under `plan`, whose kernel takes
/// plan.predicted_us with B's rows off their lines: the copy (B read and written once, and its
/// launch) against kOffLineBRowsCost (kOffLineBRowsWideCost on 256-wide tiles) of the kernel's
/// time; never where one row of tiles reads B once, which the copy would read once more.
inline bool copy_b_to_lines_pays(const cudalabs::GemmShape& shape, const SpecializedPlan& plan) {
  const double cost = plan.width > 128 ? kOffLineBRowsWideCost : kOffLineBRowsCost;
  return plan.units(shape).tiles_m > 1 &&
         operand_copy_us(shape, false, true) + kLaunchUs < cost * plan.predicted_us;
}

/// What A's rows off 128-byte lines cost the warp-specialized kernel on tiles at most 128 wide, as
/// a share of its time (A is half of what each of their stages loads): the kernel's time saved
/// with A's rows on lines, K whole on the H100 at six shapes, was 0.07 to 0.20 with B as it was
/// (median 0.13; 2389 x 2048 x 13256 0.20, 6431 x 3976 x 3448 0.17, 4096 x 4096 x 4104 0.09) and
/// 0.08 to 0.22 with B on lines too (median 0.09): a share between the two. On 256-wide tiles,
/// where A is a third, the medians were 0.03 and 0.02, which a copy seldom repays
/// (docs/data/history/lab11_tail_split_s43_nvidia-h100/, bench_lines). It was 0.25, measured on the
/// H200 with tensor maps that promoted 256 bytes into L2 for each line a box's row touched.
inline constexpr double kOffLineARowsCost = 0.10;

/// Whether copying A into rows 128 bytes apart pays for `shape` under `plan`, whose kernel takes
/// plan.predicted_us with A's rows off their lines: on tiles at most 128 wide, the copy (A read
/// and written once, and its launch) against kOffLineARowsCost of the kernel's time; never where
/// one column of tiles reads A once.
inline bool copy_a_to_lines_pays(const cudalabs::GemmShape& shape, const SpecializedPlan& plan) {
  return plan.width <= 128 && plan.units(shape).tiles_n > 1 &&
         operand_copy_us(shape, true, false) + kLaunchUs < kOffLineARowsCost * plan.predicted_us;
}

/// The model's time of the wgmma rung on `shape` on `sms` SMs: rounds of its 64 x 128 tiles, two
/// blocks an SM, each block kWgmmaRungStartUs and its k-blocks, then C written from the fragments,
/// three L2 sectors for each of C's (history/lab11_epilogue_ncu_nvidia-h200: 5.16 M for 1.53 M);
/// at least one launch's host time.
inline double predicted_wgmma_rung_us(const cudalabs::GemmShape& shape, int sms) {
  const long long tiles = static_cast<long long>(cudalabs::ceil_div(shape.m, WgmmaTile::BM)) *
                          cudalabs::ceil_div(shape.n, WgmmaTile::BN);
  const double rounds = static_cast<double>(cudalabs::ceil_div(tiles, 2LL * sms));
  const double k_blocks = cudalabs::ceil_div(shape.k, WgmmaTile::BK);
  const double c_write_us = 3.0 * 4.0 * static_cast<double>(shape.m) * shape.n / (kDramGBps * 1e3);
  return std::max(rounds * (kWgmmaRungStartUs + k_blocks * kWgmmaRungStepUs) + c_write_us,
                  kLaunchUs);
}

/// Whether `best` should run the wgmma rung on operands TMA cannot read (A when `copy_a`, B when
/// `copy_b`) rather than copy them and run `plan`: the copy is a launch of its own, and a stream of
/// calls goes no faster than the host enqueues their launches (kLaunchUs each), so a small GEMM may
/// be done sooner by the slower kernel that reads any alignment itself.
inline bool one_launch_rung_pays(const cudalabs::GemmShape& shape, const SpecializedPlan& plan,
                                 bool copy_a, bool copy_b, int sms) {
  if (!copy_a && !copy_b) return false;
  const double copy_path_us =
      std::max(operand_copy_us(shape, copy_a, copy_b) + plan.predicted_us, 2.0 * kLaunchUs);
  return predicted_wgmma_rung_us(shape, sms) < copy_path_us;
}

/// The warp-specialized kernel's start on the GPU, which its plans leave out (the same for all of
/// them): one unit of one k-block took 3.4 us of GPU time a launch at 128 x 64 x 64 and 128 x 256
/// x 64, against the model's 1.3 and 1.8 without it, so about 1.8 more
/// (docs/data/history/gemm_random_shapes_s18/callC_d181ad3_probe.txt: graph replays).
inline constexpr double kSpecializedLaunchUs = 1.8;

/// The few-columns kernel's (few_columns.cuh) costs, fitted to its GPU time a launch (graph
/// replays) on the H200 at 26 shapes of 1 to 8 columns and every alignment of A, at 3 to 6 slices
/// of K each (122 plans; docs/data/history/lab11_few_columns_s35_nvidia-h200/: rms log error 0.12,
/// the plan the model picks of those timed 1.02 of the fastest's time on average, 1.15 at worst):
/// its start; each round of blocks' latency beside its values (B's slice staged, the first chunk's
/// trip from DRAM, the parts summed), longer where B's slice arrives a value a load than a row of
/// 8 columns a 16-byte load; the values of A one SM multiplies a microsecond, its blocks together,
/// at A's 16-byte loads and at narrower ones (then 16 element loads a lane a row where rows are 2
/// bytes apart, instead of 2). Split, its parts cost what common/slice_sums.h's in_place_sums_us
/// says. Rows 2 bytes apart have since taken 4-byte loads shifted into place, 1.07 to 1.38 times as
/// fast (the record's call 4); refitted with them the model would run the kernel at 3000 x 2 x
/// 12000, where it took 1.2 times the tiles' time, so these constants stay, conservative there.
inline constexpr double kFewColumnsStartUs = 0.6;
/// Each round of the few-columns kernel's blocks beside its values, B's rows loaded whole (above).
inline constexpr double kFewColumnsRoundUs = 1.0;
/// The same, B loaded a value a load (above).
inline constexpr double kFewColumnsNarrowBRoundUs = 2.6;
/// Values of A one SM multiplies a microsecond on the few-columns kernel where A's rows allow
/// 16-byte loads (above).
inline constexpr double kFewColumnsSmValuesPerUs = 17000.0;
/// The same where they do not (8-, 4- or 2-byte alignment).
inline constexpr double kFewColumnsNarrowSmValuesPerUs = 10500.0;

/// How the few-columns kernel loads its operands, which its time depends on: A's rows 16 bytes a
/// load or narrower; B's slice a row of 8 columns a 16-byte load or a value a load.
struct FewColumnsLoads {
  bool wide_a = true;  ///< A's rows allow 16-byte loads
  bool wide_b = true;  ///< B is 8 columns in rows that allow 16-byte loads
};

/// The loads the few-columns kernel takes for `shape` where TMA would need A's rows copied
/// (`copy_a`: they do not allow 16-byte loads) or B's (`copy_b`): the kernel tests the same of its
/// arguments itself (few_columns.cuh: b_rows_wide), so that no plan can send it misaligned loads.
inline FewColumnsLoads few_columns_loads(const cudalabs::GemmShape& shape, bool copy_a,
                                         bool copy_b) {
  return {!copy_a, shape.n == 8 && !copy_b};
}

/// How `best` runs a kernel that cuts K into slices summed in place (the few-columns and few-rows
/// kernels): K in `slices` slices of `slice_k` values (the last the rest). `Kernel` only names the
/// kernel, so that each keeps its own remembered plan (common/remembered_plan.h).
template <class Kernel>
struct SlicesOfK {
  int slices = 1;             ///< slices of K (gridDim.y): 1 = K whole
  int slice_k = 0;            ///< values of K of every slice but the last (a multiple of 8)
  double predicted_us = 0.0;  ///< the model's time
  /// Whether K is split (a workspace, summed in place).
  bool split() const { return slices > 1; }
};

/// Of K cut into the fewest slices of at most `max_slice_k` values (a multiple of 8) to `extra`
/// more, the plan `predicted_us(slice_k)` has soonest.
template <class Plan, class Predict>
Plan soonest_slices(int k, int max_slice_k, int extra, Predict predicted_us) {
  const int least = cudalabs::ceil_div(k, max_slice_k);
  const int most = std::min(cudalabs::ceil_div(k, 8), least + extra);
  Plan best;
  for (int count = least; count <= most; ++count) {
    const int slice_k = (cudalabs::ceil_div(k, count) + 7) / 8 * 8;
    if (slice_k > max_slice_k) continue;
    const double us = predicted_us(slice_k);
    if (best.slice_k == 0 || us < best.predicted_us)
      best = {cudalabs::ceil_div(k, slice_k), slice_k, us};
  }
  return best;
}

/// How `best` runs the few-columns kernel: one block per 32 rows of C and slice of K.
using FewColumnsPlan = SlicesOfK<struct FewColumnsKernelName>;

/// Blocks of 32 rows of C the few-columns kernel launches for `shape` per slice of K.
inline int few_columns_row_blocks(const cudalabs::GemmShape& shape) {
  return cudalabs::ceil_div(shape.m, kFewColumnsBlockRows);
}

/// Whether the few-columns kernel can run `shape`: C of at most kFewColumnsMax columns, and K
/// within the slices the grid holds (gridDim.y, 65535 of at most kFewColumnsMaxSliceK values).
inline bool few_columns_fit(const cudalabs::GemmShape& shape) {
  return shape.n <= kFewColumnsMax &&
         shape.k <= static_cast<long long>(kFewColumnsMaxSliceK) * 65535;
}

/// The model's time of the few-columns kernel on `shape` with K in slices of `slice_k` on `sms`
/// SMs, its operands loaded as `loads` says: its start, then the busiest SM's rounds
/// of blocks (kFewColumnsBlocksPerSm at a time, each its 32 rows by its slice) or A and B read once
/// from DRAM, whichever is longer; split, the sum of the slices (in_place_sums_us: a block's rows
/// are a region).
inline double predicted_few_columns_us(const cudalabs::GemmShape& shape, int slice_k, int sms,
                                       FewColumnsLoads loads) {
  const int slices = cudalabs::ceil_div(shape.k, slice_k);
  const double blocks = static_cast<double>(few_columns_row_blocks(shape)) * slices;
  const double rounds = std::ceil(blocks / (static_cast<double>(kFewColumnsBlocksPerSm) * sms));
  const double round_values =
      static_cast<double>(kFewColumnsBlocksPerSm) * kFewColumnsBlockRows * slice_k;
  const double rate = loads.wide_a ? kFewColumnsSmValuesPerUs : kFewColumnsNarrowSmValuesPerUs;
  const double round_us = loads.wide_b ? kFewColumnsRoundUs : kFewColumnsNarrowBRoundUs;
  const double compute_us = rounds * (round_us + round_values / rate);
  const double m = shape.m, n = shape.n, k = shape.k;
  const double memory_us = (2.0 * (m * k + k * n) + 4.0 * m * n) / (kDramGBps * 1e3);
  double us = kFewColumnsStartUs + std::max(compute_us, memory_us);
  if (slices > 1)
    us += cudalabs::in_place_sums_us(slices, shape, kDramGBps,
                                     std::min(kFewColumnsBlockRows, shape.m), n);
  return us;
}

/// Slices of K past the fewest that plan_few_columns weighs: as many as make four rounds of
/// `row_blocks` blocks on `sms` SMs (more only add rounds and parts to sum).
inline int few_columns_extra_slices(int sms, int row_blocks) {
  return cudalabs::ceil_div(4 * kFewColumnsBlocksPerSm * sms, row_blocks);
}

/// The few-columns kernel's plan for `shape` (few_columns_fit) on `sms` SMs, its operands loaded
/// as `loads` says: of the slices of K that its blocks' shared memory holds (at most
/// kFewColumnsMaxSliceK values, a multiple of 8), from the fewest to few_columns_extra_slices more,
/// the fastest by the model.
inline FewColumnsPlan plan_few_columns(const cudalabs::GemmShape& shape, int sms,
                                       FewColumnsLoads loads) {
  return soonest_slices<FewColumnsPlan>(
      shape.k, kFewColumnsMaxSliceK, few_columns_extra_slices(sms, few_columns_row_blocks(shape)),
      [&](int slice_k) { return predicted_few_columns_us(shape, slice_k, sms, loads); });
}

/// Whether `best` should run the few-columns kernel on `shape` (on `sms` SMs) rather than `plan`:
/// where it can, and where the model has it done sooner than `plan` (with its start,
/// kSpecializedLaunchUs) with the copies of A (when `copy_a`) and B (when `copy_b`) that TMA would
/// need first, which the few-columns kernel does not (it reads any alignment itself).
inline bool few_columns_pays(const cudalabs::GemmShape& shape, const SpecializedPlan& plan,
                             const FewColumnsPlan& few, bool copy_a, bool copy_b) {
  if (!few_columns_fit(shape)) return false;
  const bool copies = copy_a || copy_b;
  const double tma_path_us = plan.predicted_us + kSpecializedLaunchUs +
                             (copies ? operand_copy_us(shape, copy_a, copy_b) + kLaunchUs : 0.0);
  return few.predicted_us < tma_path_us;
}

/// The few-rows kernel's (few_rows.cuh) costs, fitted to its GPU time a launch (graph replays) on
/// an H100 at 36 shapes and layouts of 1 to 8 rows, up to 9 slice counts each (278 plans;
/// docs/data/history/lab11_few_rows_bf16_s40_nvidia-h100/: mean |log error| 0.140; the plan the
/// model picks of those timed 1.048 of the fastest's time on average, 1.25 at worst; run by `best`
/// at every count of slices in call 2, 1.049 and 1.27, for the model is jagged where a slice's
/// blocks pass one an SM): its start (a launch); each round of blocks' time beside its rows (A's
/// slice staged, the warps' sums); the latency of each group of a block's rows (kFewRowsWarps x
/// kFewRowsAhead, one load a lane each), which rises with the bytes all the GPU's blocks have in
/// flight (each of 5 blocks streamed B about five times as fast as each of 114: 1 x 1024 x 1024
/// against 2 x 14073 x 1664 in 2 slices); the nanoseconds an SM spends on each multiply-add (a
/// value of B times one row of C); and the share of DRAM's rate the kernel's traffic moves at.
inline constexpr double kFewRowsStartUs = 3.867;
/// Each round of the few-rows kernel's blocks beside its rows (above).
inline constexpr double kFewRowsRoundUs = 0.8086;
/// The latency of a group of a block's rows of B with nothing else in flight (above).
inline constexpr double kFewRowsGroupUs = 0.7413;
/// What each MB the GPU's few-rows blocks have in flight adds to a group's latency (above).
inline constexpr double kFewRowsGroupUsPerMb = 0.1843;
/// Nanoseconds an SM spends on each multiply-add of the few-rows kernel (above).
inline constexpr double kFewRowsFmaNs = 0.01704;
/// The share of DRAM's rate the few-rows kernel's traffic moves at (above).
inline constexpr double kFewRowsDramShare = 0.7989;
/// How much sooner than every other path the few-rows kernel's model must have it for `best` to
/// run it: about its mean error (above). At 5 x 9001 x 301 it had the kernel 1.13 times sooner
/// than the short-K kernel, which was 1.37 times faster.
inline constexpr double kFewRowsMargin = 1.15;
/// The bytes of B one few-rows block has in flight: each lane's 16 bytes of kFewRowsAhead rows.
inline constexpr double kFewRowsBlockBytesInFlight = kFewRowsThreads * kFewRowsAhead * 16.0;

/// How `best` runs the few-rows kernel: one block per kFewRowsCols columns of C and slice of K.
using FewRowsPlan = SlicesOfK<struct FewRowsKernelName>;

/// Rows of C the few-rows kernel for a C of `m` rows holds (its kRows): 2, 4 or 8.
inline int few_rows_kernel_rows(int m) {
  return m <= 2 ? 2 : m <= 4 ? 4 : 8;
}

/// Blocks of kFewRowsCols columns of C the few-rows kernel launches for `shape` per slice of K.
inline int few_rows_col_blocks(const cudalabs::GemmShape& shape) {
  return cudalabs::ceil_div(shape.n, kFewRowsCols);
}

/// Whether the few-rows kernel can run `shape`: C of at most kFewRowsMax rows, and K within the
/// slices the grid holds (gridDim.y, 65535 of at most kFewRowsMaxSliceK values).
inline bool few_rows_fit(const cudalabs::GemmShape& shape) {
  return shape.m <= kFewRowsMax && shape.k <= static_cast<long long>(kFewRowsMaxSliceK) * 65535;
}

/// The model's time of the few-rows kernel on `shape` with K in slices of `slice_k` on `sms` SMs:
/// its start, then its rounds of blocks (few_rows_blocks_per_sm at a time on each SM), each as long
/// as a block's groups of rows take at the latency the blocks in flight give them, or its SM's
/// multiply-adds, whichever is longer; or A and B read once and C written once at
/// kFewRowsDramShare of DRAM's rate, if that is longer; split, the sum of the slices
/// (in_place_sums_us: a block's columns are a region).
inline double predicted_few_rows_us(const cudalabs::GemmShape& shape, int slice_k, int sms) {
  const int slices = cudalabs::ceil_div(shape.k, slice_k);
  const int rows = few_rows_kernel_rows(shape.m), at_once = few_rows_blocks_per_sm(rows);
  const long long blocks = static_cast<long long>(few_rows_col_blocks(shape)) * slices;
  const long long slots = static_cast<long long>(at_once) * sms;
  const double rounds = std::ceil(static_cast<double>(blocks) / static_cast<double>(slots));
  const double in_flight_mb =
      static_cast<double>(std::min(blocks, slots)) * kFewRowsBlockBytesInFlight / 1e6;
  const double groups = std::ceil(static_cast<double>(slice_k) / (kFewRowsWarps * kFewRowsAhead));
  const double latency_us = groups * (kFewRowsGroupUs + kFewRowsGroupUsPerMb * in_flight_mb);
  const double blocks_on_sm =
      std::min(static_cast<double>(at_once), std::ceil(static_cast<double>(blocks) / sms));
  // each row of the slice a warp's 32 lanes x 8 columns of multiply-adds for each row of C
  const double fma_us = blocks_on_sm * (32.0 * 8) * slice_k * rows * kFewRowsFmaNs * 1e-3;
  const double compute_us = rounds * (kFewRowsRoundUs + std::max(latency_us, fma_us));
  const double m = shape.m, n = shape.n, k = shape.k;
  const double memory_us =
      (2.0 * (m * k + k * n) + 4.0 * m * n) / (kFewRowsDramShare * kDramGBps * 1e3);
  double us = kFewRowsStartUs + std::max(compute_us, memory_us);
  if (slices > 1)
    us += cudalabs::in_place_sums_us(slices, shape, kDramGBps, m, std::min(kFewRowsCols, shape.n));
  return us;
}

/// The few-rows kernel's plan for `shape` (few_rows_fit) on `sms` SMs: of the slices of K its
/// blocks' shared memory holds (at most kFewRowsMaxSliceK values, a multiple of 8), from the fewest
/// to as many as make four rounds of blocks, the fastest by the model.
inline FewRowsPlan plan_few_rows(const cudalabs::GemmShape& shape, int sms) {
  const int at_once = few_rows_blocks_per_sm(few_rows_kernel_rows(shape.m));
  return soonest_slices<FewRowsPlan>(
      shape.k, kFewRowsMaxSliceK, cudalabs::ceil_div(4 * at_once * sms, few_rows_col_blocks(shape)),
      [&](int slice_k) { return predicted_few_rows_us(shape, slice_k, sms); });
}

/// The most K `best` gives the short-K kernel whole (short_k.cuh): past it the TMA path's pipeline
/// has its length (on the H200 the kernel was faster than the TMA path at 1 of 17 shapes of K 257
/// to 512, 1.39 times its time: docs/data/history/gemm_short_k_s27_nvidia-h200/README.md).
inline constexpr int kShortKMaxK = 256;
/// The short-K kernel's costs, K whole: its start (a launch, the first chunk's trip from memory);
/// one SM's mma.sync rate on 64 x 128 tiles, GFLOP/s, its three blocks together, where A and B
/// arrive 16 bytes a copy; what each value of a chunk costs an SM where its rows allow only 4-byte
/// copies (two values a copy) or only element by element (a chunk holds 2,048 values of A and 4,096
/// of B); the share of DRAM's rate (kDramGBps) its C and operands move at, C written from shared
/// memory a row at a time; and the norm that joins the SM's time and the traffic's. Their sum is
/// too slow and their maximum too fast where both are long: a block's chunks and its store of C
/// take turns, so the three blocks of an SM keep the writes going only part of the time
/// (5892 x 1056 x 128: 17.3 us, the maximum 14.2, on the H100; C stayed in L2 and DRAM ran at 7 %
/// under Nsight Compute). Fitted to its GPU time a launch (graph replays) at 24 shapes on the H100
/// (30 times) and the 189 shapes and layouts of K 16 to 256, every width of copies, on the H200
/// together: mean |log error| 0.088 on either (with the maximum: 0.152 on the H100, 0.090 on the
/// H200; docs/data/history/lab11_short_k_s47_nvidia-h100/offline/fit_short_k_norm.txt).
inline constexpr double kShortKStartUs = 2.78;
/// The short-K kernel's mma.sync rate, one SM (above).
inline constexpr double kShortKSmGflops = 1508.0;
/// Nanoseconds one SM spends on each value the short-K kernel copies two at a time (above).
inline constexpr double kShortKWordValueNs = 0.0243;
/// Nanoseconds one SM spends on each value the short-K kernel copies alone (above).
inline constexpr double kShortKElementNs = 0.112;
/// The share of DRAM's rate the short-K kernel's traffic moves at (above). Past 1: lab 00's copy
/// reads as much as it writes, and a C written alone moves faster (8192 x 8192 x 16, 268 MB of C:
/// 3.02 TB/s on the H100).
inline constexpr double kShortKDramShare = 1.20;
/// The norm that joins the short-K kernel's two times (above): (sm^p + memory^p)^(1/p).
inline constexpr double kShortKNormP = 1.61;

/// The copies the short-K kernel takes of its operands' rows (short_k.cuh): 16 or 4 bytes of
/// cp.async, or 2 (element by element), the widest their alignment allows.
struct ShortKCopies {
  int a_bytes = 16;  ///< A's: 16, 4 or 2
  int b_bytes = 16;  ///< B's: 16, 4 or 2
  /// TMA needs A copied first (rows off 16 bytes).
  bool copy_a() const { return a_bytes != 16; }
  /// TMA needs B copied first.
  bool copy_b() const { return b_bytes != 16; }
};

/// The copies the short-K kernel takes of rows whose widest load is `widest_bytes`
/// (common/row_alignment.h: widest_row_load_bytes): 8-byte rows take 4-byte copies.
inline int short_k_copy_bytes(int widest_bytes) {
  return widest_bytes == 16 ? 16 : widest_bytes >= 4 ? 4 : 2;
}

/// Nanoseconds an SM spends on each value of a chunk the short-K kernel copies `bytes` at a time.
inline double short_k_value_ns(int bytes) {
  return bytes == 16 ? 0.0 : bytes == 4 ? kShortKWordValueNs : kShortKElementNs;
}

/// Blocks of the short-K kernel for `shape`: one per kShortKRows x kShortKCols tile of C.
inline long long short_k_blocks(const cudalabs::GemmShape& shape) {
  return static_cast<long long>(cudalabs::ceil_div(shape.m, kShortKRows)) *
         cudalabs::ceil_div(shape.n, kShortKCols);
}

/// The short-K kernel where K is cut into a cluster's slices (short_k.cuh), fitted to its GPU time
/// a launch on the H200 at 784 plans (2 to 16 slices, a block an SM at most) of 98 shapes and
/// layouts (docs/data/history/lab11_cluster_slices_s37_nvidia-h200/; fitted again to the short-K
/// kernel's costs above, mean |log error| 0.095, 0.101 before, in
/// docs/data/history/lab11_short_k_s47_nvidia-h100/offline/refit_sliced.txt): its start, a launch
/// of clusters, its pipeline's fill from memory and the sum of its slices through distributed
/// shared memory; and what a chunk costs a block alone on its SM past the SM's time on it
/// (short_k_chunk_us), the latency kSlicedStages buffers on their way do not hide. The model holds
/// only where every cluster has SMs of its own at once (ClusterRoom).
inline constexpr double kSlicedStartUs = 3.74;
/// A chunk's time past the SM's, on a block alone on its SM, sliced (above).
inline constexpr double kSlicedChunkUs = 0.104;

/// How many clusters of each count of blocks the GPU holds at once with a block an SM
/// (cudaOccupancyMaxActiveClusters, asked with a block's shared memory too large for two). A
/// cluster's blocks run on one GPC, so a count of blocks that leaves each GPC's last SMs idle holds
/// fewer clusters than SMs / count: on the H200 the 21 clusters of 34 x 2576 x 3592 took 13.6 us
/// in slices of 5 and 16.6 in 6, and the 11 of 686 x 120 x 13245 40.2 us in 8 and 48.5 in 9, the
/// clusters past the room doubling up on SMs already busy, and the H100 alike
/// (docs/data/history/lab11_cluster_slices_s37_nvidia-h200/). Zeros where the GPU runs no clusters.
struct ClusterRoom {
  std::array<int, kMaxClusterSlices + 1> at_once{};  ///< [blocks of a cluster]: clusters at once
  /// Clusters of `blocks` blocks the GPU holds at once, a block an SM (0: none of that size).
  int clusters_of(int blocks) const {
    return blocks >= 0 && blocks <= kMaxClusterSlices ? at_once[blocks] : 0;
  }
};

/// How `best` runs the short-K kernel: K whole (two buffers, three blocks an SM), or cut into
/// `slices` slices of slice_k values (a multiple of kShortKChunk, the last the rest), one a block
/// of a cluster.
struct ShortKPlan {
  int slices = 0;             ///< slices of K: 1 = K whole; 0 = no plan (K too long to take whole)
  int slice_k = 0;            ///< values of K a block takes (K itself when whole)
  double predicted_us = 0.0;  ///< the model's time
  /// Whether K is cut into a cluster's slices.
  bool sliced() const { return slices > 1; }
};

/// The SM's time on each chunk of one block of the short-K kernel, its operands copied as `copies`
/// says, where the SM's blocks keep it busy: the chunk's multiply-adds and what its values cost
/// where they come fewer than 16 bytes a copy, microseconds.
inline double short_k_chunk_us(ShortKCopies copies) {
  const double copies_ns = double{kShortKRows} * kShortKChunk * short_k_value_ns(copies.a_bytes) +
                           double{kShortKChunk} * kShortKCols * short_k_value_ns(copies.b_bytes);
  return 2.0 * kShortKRows * kShortKCols * kShortKChunk / (kShortKSmGflops * 1e3) +
         copies_ns * 1e-3;
}

/// The time to write C and read A and B once at kShortKDramShare of DRAM's rate, microseconds.
inline double short_k_memory_us(const cudalabs::GemmShape& shape) {
  const double m = shape.m, n = shape.n;
  return (4.0 * m * n + 2.0 * (m + n) * static_cast<double>(shape.k)) /
         (kShortKDramShare * kDramGBps * 1e3);
}

/// The model's time of the short-K kernel on `shape` on `sms` SMs, K whole, its operands copied as
/// `copies` says: its start, then the busiest SM's blocks' chunks (short_k_chunk_us) and
/// short_k_memory_us joined by the kShortKNormP norm.
inline double predicted_short_k_us(const cudalabs::GemmShape& shape, ShortKCopies copies, int sms) {
  const double per_sm =
      static_cast<double>(cudalabs::ceil_div(short_k_blocks(shape), static_cast<long long>(sms)));
  const double chunks = cudalabs::ceil_div(shape.k, kShortKChunk);
  const double sm_us = per_sm * chunks * short_k_chunk_us(copies);
  return kShortKStartUs +
         std::pow(std::pow(sm_us, kShortKNormP) + std::pow(short_k_memory_us(shape), kShortKNormP),
                  1.0 / kShortKNormP);
}

/// The model's time of the short-K kernel on `shape` with K in slices of `slice_k`, a block an SM
/// at most: its start, then its slice's chunks, each the SM's time on it (short_k_chunk_us) and
/// kSlicedChunkUs; or short_k_memory_us, if longer.
inline double predicted_sliced_us(const cudalabs::GemmShape& shape, ShortKCopies copies,
                                  int slice_k) {
  const double chunks = cudalabs::ceil_div(slice_k, kShortKChunk);
  return std::max(kSlicedStartUs + chunks * (kSlicedChunkUs + short_k_chunk_us(copies)),
                  short_k_memory_us(shape));
}

/// The short-K kernel's plan for `shape` on `sms` SMs, its operands copied as `copies` says: of K
/// whole (at most kShortKMaxK) and K in 2 to kMaxClusterSlices slices (a cluster's blocks) where
/// `room` holds a cluster of them for every tile at once, the fastest by the model; none (slices 0)
/// where K is longer than kShortKMaxK and no count of slices fits.
inline ShortKPlan plan_short_k(const cudalabs::GemmShape& shape, ShortKCopies copies, int sms,
                               const ClusterRoom& room) {
  ShortKPlan best;
  if (shape.k <= kShortKMaxK) best = {1, shape.k, predicted_short_k_us(shape, copies, sms)};
  const long long tiles = short_k_blocks(shape);
  for (int slices = 2; slices <= kMaxClusterSlices; ++slices) {
    if (tiles > room.clusters_of(slices)) continue;  // clusters would wait, or share SMs
    const int slice_k =
        cudalabs::ceil_div(cudalabs::ceil_div(shape.k, slices), kShortKChunk) * kShortKChunk;
    if (cudalabs::ceil_div(shape.k, slice_k) != slices) continue;  // another count's slices
    const double us = predicted_sliced_us(shape, copies, slice_k);
    if (best.slices == 0 || us < best.predicted_us) best = {slices, slice_k, us};
  }
  return best;
}

/// What C's rows off 16 bytes add to each unit's store (unit_store_us) of the warp-specialized
/// kernel, as a share of it, on tiles `width` wide: its epilogue then stores a float or two a lane
/// (staged_store.cuh). Medians over `best`'s GPU time at the random shapes of K at most 512 on
/// tiles of K whole, in more than one round, beyond what the model predicts for them (H100,
/// session 44's base and session 48's four): on 256-wide tiles 0.62 to 1.28 of a store a round
/// (6046 x 6821 x 57: 125.5 us, predicted 69.5; the short-K kernel took 98.2), on 128-wide ones
/// 0.06 to 0.45, on 64-wide ones none; with C's rows aligned, -0.41 to 0.14
/// (docs/data/history/lab11_short_k_s47_nvidia-h100/offline/unaligned_c.txt). Each width timed
/// beside an aligned C (that record's call 2) cost 128-row tiles of every width more than this,
/// 1.4 to 1.5 stores a round at 6046 x 6821 x 57. The epilogue's stores tried in
/// docs/data/history/lab11_pingpong_s49/ (whole sectors; float4s shifted to 16-byte boundaries)
/// did not remove that cost, so it is still charged.
inline double unaligned_c_store_share(int width) {
  return width > 128 ? 1.0 : width > 64 ? 0.12 : 0.0;
}

/// What C's rows allowing stores of only `c_bytes` (widest_row_load_bytes of C: 16, 8 or 4) add to
/// `plan` on `shape` on `sms` SMs: unaligned_c_store_share of a unit's store a round of the tiles
/// it writes itself (those K whole; a split's sums write the rest).
inline double unaligned_c_us(const cudalabs::GemmShape& shape, const SpecializedPlan& plan,
                             int c_bytes, int sms) {
  if (c_bytes >= 16) return 0.0;
  const int written = plan.split() ? plan.whole_tiles : plan.units(shape).tiles();
  const double rounds = static_cast<double>(cudalabs::ceil_div(written, sms));
  return rounds * unaligned_c_store_share(plan.width) * unit_store_us(plan.width, plan.rows);
}

/// The time of what `best` runs on `shape` (on `sms` SMs) where no kernel that reads any alignment
/// pays: `plan` (with its start, kSpecializedLaunchUs, and what C's rows of `c_bytes` stores add:
/// unaligned_c_us) after the copies TMA needs of A (when `copy_a`) and B (when `copy_b`), or the
/// wgmma rung where that is what those copies would leave to run.
inline double tma_path_us(const cudalabs::GemmShape& shape, const SpecializedPlan& plan,
                          bool copy_a, bool copy_b, int c_bytes, int sms) {
  if (one_launch_rung_pays(shape, plan, copy_a, copy_b, sms))
    return predicted_wgmma_rung_us(shape, sms);
  return plan.predicted_us + kSpecializedLaunchUs + unaligned_c_us(shape, plan, c_bytes, sms) +
         (copy_a || copy_b ? operand_copy_us(shape, copy_a, copy_b) + kLaunchUs : 0.0);
}

/// Whether `best` should run the short-K kernel's plan `short_k` on `shape` (on `sms` SMs), its
/// operands copied as `copies` says, rather than `plan`: where it has one, and the model has it
/// done sooner than tma_path_us (`plan` after the copies TMA would need, its stores to C's rows of
/// `c_bytes`), or than the wgmma rung where that is what those copies would leave to run. The
/// short-K kernel reads any alignment itself and writes C a row at a time at any alignment.
inline bool short_k_pays(const cudalabs::GemmShape& shape, const SpecializedPlan& plan,
                         const ShortKPlan& short_k, ShortKCopies copies, int c_bytes, int sms) {
  if (short_k.slices == 0) return false;
  return short_k.predicted_us <
         tma_path_us(shape, plan, copies.copy_a(), copies.copy_b(), c_bytes, sms);
}

/// Whether `best` should run the few-rows kernel's plan `few` on `shape` (on `sms` SMs) rather
/// than what it runs otherwise: `plan` after the copies TMA would need, its stores to C's rows of
/// `c_bytes` (or the wgmma rung where that is sooner), or the short-K kernel's plan `short_k` where
/// that pays, by kFewRowsMargin. The few-rows kernel reads any alignment itself.
inline bool few_rows_pays(const cudalabs::GemmShape& shape, const SpecializedPlan& plan,
                          const FewRowsPlan& few, const ShortKPlan& short_k, ShortKCopies copies,
                          int c_bytes, int sms) {
  if (!few_rows_fit(shape)) return false;
  double other_us = tma_path_us(shape, plan, copies.copy_a(), copies.copy_b(), c_bytes, sms);
  if (short_k_pays(shape, plan, short_k, copies, c_bytes, sms)) other_us = short_k.predicted_us;
  return few.predicted_us * kFewRowsMargin < other_us;
}

/// The plan `best` runs for `shape` on `sms` SMs: K whole on best_width's 128-row tiles, unless
/// another plan (128-row tiles of any width with K in 2 to min(k-blocks, sms) slices, or, for a C
/// of more than kFewColumnsMax columns, 64-row tiles of kOneConsumerWidths with K whole or so
/// split) is predicted to take at most kSplitMustSave of its time, or a tail split (the tiles
/// past the last whole rounds but one or two split, on 128-row tiles at least best_width wide)
/// at most kTailSplitMustSave; then the fastest of them.
///
/// Why no tail split on narrower tiles: the model's floor reads A and B once, but tiles narrower
/// than best_width's read A more times, which L2 only partly catches. Such splits, predicted 1 to
/// 18 % sooner than K whole on best_width's tiles, ran 9 to 33 % slower on the H100 (4776 x 232 x
/// 8392 on 64-wide tiles: 102.0 us against 76.7 with K whole on 128-wide ones; the record above).
inline SpecializedPlan plan_best(const cudalabs::GemmShape& shape, int sms) {
  const int whole_width = best_width(shape, sms);
  SpecializedPlan plan{whole_width, 1, predicted_specialized_us(shape, whole_width, 1, sms)};
  const int k_blocks = cudalabs::ceil_div(shape.k, SwizzledTile::BK);
  SpecializedPlan fastest = plan;
  double fastest_charged_us = plan.predicted_us;  // a split's time over what it must save
  const auto weigh = [&](int rows, int width, int least_slices) {
    const int tiles = WorkUnits::of(shape, rows, width, SwizzledTile::BK, 1).tiles();
    // every tile split, or the tiles of whole rounds K whole but those of the last one or two
    const bool tail_splits = rows == 128 && width >= whole_width;
    const int most_whole_rounds = tail_splits ? (tiles - 1) / sms : 0;
    for (int whole_rounds = 0; whole_rounds <= most_whole_rounds; ++whole_rounds) {
      if (whole_rounds > 0 && whole_rounds < most_whole_rounds - 1) continue;
      for (int slices = std::max(least_slices, whole_rounds > 0 ? 2 : 1);
           slices <= std::min(k_blocks, sms); ++slices) {
        if (!WorkUnits::slices_fit(k_blocks, slices)) continue;  // another count's slices
        const int whole = slices > 1 ? whole_rounds * sms : 0;
        const double us = predicted_specialized_us(shape, width, slices, sms, rows, whole);
        const double must_save = whole > 0 ? kTailSplitMustSave : kSplitMustSave;
        const double charged_us = us / must_save;
        if (charged_us < fastest_charged_us) {
          fastest = {width, slices, us, rows, whole};
          fastest_charged_us = charged_us;
        }
      }
    }
  };
  for (const int width : kSpecializedWidths) weigh(128, width, 2);
  if (shape.n > kFewColumnsMax)  // not the few-columns class (kOneConsumerTileRate)
    for (const int width : kOneConsumerWidths) weigh(64, width, 1);
  return fastest;
}

}  // namespace lab11
