/// @file labs/11_tensor_cores/work_units.h
/// @brief Lab 11, given: the work a persistent block of the warp-specialized kernel walks, in units
/// of (tile of C, slice of K). Host and device code, so that `best`'s plan (best_plan.h), the
/// launch (launch.cuh), the kernel and the CPU tests share one arithmetic.
///
/// With K whole (one slice) a unit is a tile, and the kernel writes C. When `best` splits K (a C of
/// few tiles and a long K, which would leave most SMs idle), each tile's K is cut into `slices`
/// slices of whole k-blocks (BK deep: the stages' depth), every slice but the last slice_blocks()
/// of them, the last the rest (never none), and the kernel's C is a workspace of `slices` partial
/// Cs. The launch sums them itself (`finish`: after storing a unit, a consumer warpgroup calls
/// finish_unit, unit_finish.cuh, and the last slice of its rows to arrive adds them all into C),
/// or, in a stream being captured into a graph, one more kernel does (common/slice_sums.cuh). The
/// tensor maps cover the whole of K, so a slice is only a different range of k-blocks.
#pragma once

#include "common/gemm_types.h"
#include "common/split_finish.h"

#include <cuda_runtime.h>  // __host__ __device__

#include <stdexcept>
#include <string>

namespace lab11 {

/// The units of work of one launch: tiles_m x tiles_n tiles of C, each in `slices` slices of K.
/// Unit u is tile u % tiles() (numbered for grouped_tile) of slice u / tiles(): the blocks that run
/// together work on the same slice of K, tile beside tile, and share its panels of A and B in L2.
struct WorkUnits {
  int tiles_m = 1;   ///< tiles down C
  int tiles_n = 1;   ///< tiles across C
  int k_blocks = 1;  ///< k-blocks of K: ceil(K / BK)
  int slices = 1;    ///< slices of K: 1 (K whole, C written) .. k_blocks (a workspace written)
  /// Split, where the launch sums the slices into C itself (none: another kernel does; the
  /// launch sets it).
  cudalabs::SplitFinish finish{};

  /// The units of a GEMM of `shape` on tiles of bm x bn x bk with K in `slices` slices. Throws
  /// std::invalid_argument unless `slices` is a count whose slices are all non-empty
  /// (slices_fit).
  static WorkUnits of(const cudalabs::GemmShape& shape, int bm, int bn, int bk, int slices);

  /// Whether K's `k_blocks` k-blocks cut into `slices` slices of ceil(k_blocks / slices) leave
  /// none of them empty (e.g. 10 k-blocks make 4 slices of 3, 3, 3 and 1, but not 6: slices of 2
  /// cover them in 5).
  __host__ __device__ static constexpr bool slices_fit(int k_blocks, int slices) {
    return slices >= 1 && slices <= k_blocks &&
           (k_blocks + (k_blocks + slices - 1) / slices - 1) / ((k_blocks + slices - 1) / slices) ==
               slices;
  }

  /// Tiles of C.
  __host__ __device__ constexpr int tiles() const { return tiles_m * tiles_n; }
  /// Units of the launch: every tile in every slice.
  __host__ __device__ constexpr int count() const { return tiles() * slices; }
  /// K whole (C written directly) or sliced (a workspace written).
  __host__ __device__ constexpr bool split() const { return slices > 1; }
  /// The tile of unit `unit`, numbered as grouped_tile takes it.
  __host__ __device__ constexpr int tile(int unit) const { return unit % tiles(); }
  /// The slice of K of unit `unit`.
  __host__ __device__ constexpr int slice(int unit) const { return unit / tiles(); }
  /// k-blocks of every slice but the last.
  __host__ __device__ constexpr int slice_blocks() const {
    return (k_blocks + slices - 1) / slices;
  }
  /// The first k-block of unit `unit`.
  __host__ __device__ constexpr int first_k_block(int unit) const {
    return slice(unit) * slice_blocks();
  }
  /// One past the last k-block of unit `unit`.
  __host__ __device__ constexpr int end_k_block(int unit) const {
    const int end = first_k_block(unit) + slice_blocks();
    return end < k_blocks ? end : k_blocks;
  }
  /// Where unit `unit` stores its tile: args itself with K whole; under a split, args.c is the
  /// workspace (args.m rows of args.ldc floats a slice, alpha 1, beta 0: the launch sets it up),
  /// and the unit writes into its slice's part of it.
  template <class Args>
  __host__ __device__ Args output(Args args, int unit) const {
    args.c += static_cast<long long>(slice(unit)) * args.m * args.ldc;
    return args;
  }
};

inline WorkUnits WorkUnits::of(const cudalabs::GemmShape& shape, int bm, int bn, int bk,
                               int slices) {
  const WorkUnits units{(shape.m + bm - 1) / bm, (shape.n + bn - 1) / bn, (shape.k + bk - 1) / bk,
                        slices};
  if (!slices_fit(units.k_blocks, slices))
    throw std::invalid_argument("lab11 work units: slices = " + std::to_string(slices) +
                                " does not cut " + std::to_string(units.k_blocks) +
                                " k-blocks into non-empty slices");
  return units;
}

}  // namespace lab11
