/// @file labs/07_wide_loads/best_plan.h
/// @brief How `best` picks a kernel and a split of K for a shape: a model of waves built on each
/// tile's measured speed, with DRAM's bandwidth as a floor.
#pragma once

#include "common/gemm_types.h"

#include <span>
#include <string>
#include <vector>

namespace lab07 {

/// One kernel `best` may run (an entry of BestTiles, tiles.h), with what the model needs to know
/// of it.
struct TileCandidate {
  int index;    ///< its place in BestTiles, or past it for the few-rows and short-K kernels
                ///< (launch.cuh dispatches on it)
  bool narrow;  ///< the narrow kernel (its "tile" is the 32 rows x 16 columns a block computes)
  bool few_rows = false;  ///< the few-rows kernel (few_rows.cuh: given code, not a variant)
  const char* name;       ///< its variant's name, e.g. "wide_256x128"
  int bm;                 ///< block tile rows
  int bn;                 ///< block tile columns
  int bk;                 ///< block tile depth along K
  int warps;              ///< warps per block
  int blocks_per_sm;      ///< blocks an SM holds at once (its __launch_bounds__ budget)
  double sm_gflops;       ///< one SM's speed on this tile when full (measured, see tiles.h)
  double fixed_us;        ///< what a launch costs beyond its rounds: fill, drain, the last stores
  /// its speed when A or B does not allow 128-bit loads (four scalar loads a float4), as a
  /// fraction of its speed with them (measured, tiles.h)
  double scalar_rate = 1.0;
  bool short_k = false;  ///< the short-K kernel (short_k.cuh: given code, not a variant)
};

/// The most slices `best` cuts K into: a C of few tiles over a long K (43 x 104 x 13384 is three
/// blocks of the few-rows kernel) needs 32 to reach every SM.
inline constexpr int kMaxSplits = 32;

/// What `best` runs for one shape.
struct BestPlan {
  const TileCandidate* candidate = nullptr;  ///< the tile
  int splits = 1;   ///< slices of K, in one launch (gridDim.z) into a workspace, summed in it
  int slice_k = 0;  ///< K of every slice but the last: k_slice_length (tiles.h); K when unsplit
  /// Stream-K instead when > 0: this many blocks (as many as the SMs hold at once) share out the K
  /// iterations of every tile equally (stream_k.h, StreamKPartition); splits is then 1, slice_k K.
  int stream_blocks = 0;
  double predicted_us = 0.0;  ///< the model's time
  int sms = 0;                ///< the SMs it was planned for (the few-rows launch reads it)
  /// Whether the plan runs stream-K.
  bool stream_k() const { return stream_blocks > 0; }
  /// Whether `other` runs the same kernel with K shared out the same way.
  bool same_as(const BestPlan& other) const {
    return candidate == other.candidate && splits == other.splits && slice_k == other.slice_k &&
           stream_blocks == other.stream_blocks;
  }
  /// e.g. "wide_256x128, K split 4 ways (4096 each), predicted 812 us", or "wide_256x128,
  /// stream-K on 132 blocks, predicted 380 us".
  std::string describe() const;
};

/// The candidates: BestTiles (tiles.h) in its order, largest tile first, then the narrow kernel,
/// then the few-rows kernel (few_rows.cuh), which `best` runs for a C of few rows, and the short-K
/// kernel (short_k.cuh), which it runs for a short K: given code, no variant.
std::span<const TileCandidate> best_candidates();

/// Every plan `best` may run for `shape` on `sms` SMs, each with its predicted time: each tile
/// unsplit, split 2 to kMaxSplits ways (slices of at least 64) and under stream-K, the narrow
/// kernel (unsplit and split) for N <= 64, the few-rows kernel (unsplit and split) for M <=
/// kFewRowsMaxRows and the short-K kernel (K whole) for K <= kShortKMaxK. lab07_plans times them
/// all against the model. Without `vector_loads` (A or B off 16-byte alignment) each tile runs at
/// its scalar_rate.
std::vector<BestPlan> candidate_plans(const cudalabs::GemmShape& shape, int sms,
                                      bool vector_loads = true);

/// The model's time for `candidate` on `shape` with K in `splits` slices on a GPU of `sms` SMs, in
/// microseconds on an H100-like SM. An SM holds blocks_per_sm blocks at a time, so the busiest SM
/// runs ceil(tiles / sms) blocks in rounds of blocks_per_sm; an SM with fewer than 8 warps issues
/// proportionally less. Where no two blocks share a panel (C one tile wide or one tile tall), every
/// tile's loads come from DRAM, and a block staging one tile ahead finishes at most one tile per
/// DRAM round trip. No kernel beats DRAM: reading A, B and C once at the bandwidth of the SMs it
/// occupies is a floor (the narrow kernel's whole cost: it reads A once per 16 columns of C; the
/// few-rows kernel's: it reads B once per group of rows). A split adds its partial sums' trip
/// through memory and the last part of each region reading them all back. Without `vector_loads` a
/// tile's SM runs at its scalar_rate.
double predicted_us(const TileCandidate& candidate, const cudalabs::GemmShape& shape, int splits,
                    int sms, bool vector_loads = true);

/// The K iterations (BK deep) of all of a block tile's tiles of C: what stream-K shares out.
long long stream_k_iterations(const TileCandidate& candidate, const cudalabs::GemmShape& shape);

/// The model's time for `candidate` on `shape` under stream-K on `sms` SMs (stream_k.h,
/// StreamKPartition): blocks_per_sm blocks an SM, each an equal share of the iterations (no SM
/// idles for want of a tile; the tails, which no other block reads at the same time, at one tile
/// per DRAM round trip at most), plus a fill and a trip to the workspace for each piece of a tile
/// a block computes (kStreamPieceUs, fitted), and the pieces' trip through memory and the last
/// piece of each tile's sum, as for a split.
double predicted_stream_k_us(const TileCandidate& candidate, const cudalabs::GemmShape& shape,
                             int sms, bool vector_loads = true);

/// The fastest plan the model finds, with 128-bit loads (`vector_loads`) or on the scalar path. K
/// is split or streamed only where that saves a tenth of the best time with K whole.
BestPlan plan_best(const cudalabs::GemmShape& shape, int sms, bool vector_loads = true);

/// The model's time to copy the operands that do not allow 128-bit loads (A when `pack_a`, B when
/// `pack_b`) into aligned scratch: each read and written once at DRAM speed, plus a launch each.
double repack_us(const cudalabs::GemmShape& shape, bool pack_a, bool pack_b, int sms);

/// Whether `best` should copy the misaligned operands (repack_us) and run `vector_plan`, the best
/// plan with 128-bit loads, rather than run `scalar_plan`, the best plan on the scalar path: by the
/// model's times, the copy and the vector plan must take less than the scalar plan. It never pays
/// for the narrow and few-rows kernels, whose loads run as fast at any alignment.
bool repack_pays(const BestPlan& scalar_plan, const BestPlan& vector_plan,
                 const cudalabs::GemmShape& shape, bool pack_a, bool pack_b, int sms);

}  // namespace lab07
