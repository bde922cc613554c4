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
///
/// A split may leave its first `whole_tiles` tiles whole (the tail split): where the tiles fill a
/// few rounds of the SMs and part of one more, whole rounds of tiles run K whole, in step, and
/// only the tiles of the last, partial round are cut into slices, which then fill every SM. A
/// whole tile of a split launch is written into C itself, on either path (the summing kernel
/// leaves it: TailParts).
#pragma once

#include "common/gemm_types.h"
#include "common/split_finish.h"

#include <cuda_runtime.h>  // __host__ __device__

#include <stdexcept>
#include <string>

namespace lab11 {

/// Where tile `tile` of a tiles_m x tiles_n grid starts (its tile row, tile column) when
/// consecutive tiles walk down `group_rows` tile rows before moving right, so that tiles running
/// together share panels of A and B in L2.
__host__ __device__ inline int2 grouped_tile(int tile, int tiles_m, int tiles_n, int group_rows) {
  const int per_group = group_rows * tiles_n;
  const int first_row = tile / per_group * group_rows;
  const int rows_here = tiles_m - first_row < group_rows ? tiles_m - first_row : group_rows;
  const int in_group = tile % per_group;
  return make_int2(first_row + in_group % rows_here, in_group / rows_here);
}

/// The number grouped_tile gives the tile at tile row `row`, tile column `col` (its inverse).
__host__ __device__ inline int grouped_index(int row, int col, int tiles_m, int tiles_n,
                                             int group_rows) {
  const int first_row = row / group_rows * group_rows;
  const int rows_here = tiles_m - first_row < group_rows ? tiles_m - first_row : group_rows;
  return first_row * tiles_n + col * rows_here + (row - first_row);
}

/// The units of work of one launch: tiles_m x tiles_n tiles of C, the first whole_tiles of them
/// (numbered for grouped_tile) with K whole, the rest each in `slices` slices of K. Unit u <
/// whole_tiles is tile u; past them unit u is tile whole_tiles + v % tail_tiles() of slice v /
/// tail_tiles(), v = u - whole_tiles: the blocks that run together work on the same slice of K,
/// tile beside tile, and share its panels of A and B in L2.
struct WorkUnits {
  int tiles_m = 1;      ///< tiles down C
  int tiles_n = 1;      ///< tiles across C
  int k_blocks = 1;     ///< k-blocks of K: ceil(K / BK)
  int slices = 1;       ///< slices of K: 1 (K whole, C written) .. k_blocks (a workspace written)
  int whole_tiles = 0;  ///< tiles that keep K whole when K is split (0 .. tiles() - 1)
  /// Split, where the launch sums the slices into C itself (none: another kernel does; the
  /// launch sets it).
  cudalabs::SplitFinish finish{};

  /// The units of a GEMM of `shape` on tiles of bm x bn x bk with K in `slices` slices, the first
  /// `whole_tiles` tiles K whole. Throws std::invalid_argument unless `slices` is a count whose
  /// slices are all non-empty (slices_fit) and some tile is left to split.
  static WorkUnits of(const cudalabs::GemmShape& shape, int bm, int bn, int bk, int slices,
                      int whole_tiles = 0);

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
  /// Tiles cut into slices: all of them, or those after the whole ones.
  __host__ __device__ constexpr int tail_tiles() const {
    return slices > 1 ? tiles() - whole_tiles : tiles();
  }
  /// Units of the launch: every tile in every slice, the whole tiles once.
  __host__ __device__ constexpr int count() const { return tiles() + tail_tiles() * (slices - 1); }
  /// K whole (C written directly) or sliced (a workspace written).
  __host__ __device__ constexpr bool split() const { return slices > 1; }
  /// Whether unit `unit` is a tile with K whole in a split launch.
  __host__ __device__ constexpr bool whole_in_split(int unit) const {
    return slices > 1 && unit < whole_tiles;
  }
  /// The tile of unit `unit`, numbered as grouped_tile takes it.
  __host__ __device__ constexpr int tile(int unit) const {
    return whole_in_split(unit)
               ? unit
               : tiles() - tail_tiles() + (unit - tiles() + tail_tiles()) % tail_tiles();
  }
  /// The slice of K of unit `unit` (0 for a whole tile).
  __host__ __device__ constexpr int slice(int unit) const {
    return whole_in_split(unit) ? 0 : (unit - tiles() + tail_tiles()) / tail_tiles();
  }
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
    if (whole_in_split(unit)) return k_blocks;
    const int end = first_k_block(unit) + slice_blocks();
    return end < k_blocks ? end : k_blocks;
  }
  /// Where unit `unit` stores its tile: args itself with K whole; under a split, args.c is the
  /// workspace (args.m rows of args.ldc floats a slice, alpha 1, beta 0: the launch sets it up),
  /// and the unit writes into its slice's part of it, or, a whole tile, into C itself
  /// (finish.out, which the launch sets on either path of common/slice_sums.cuh).
  template <class Args>
  __host__ __device__ Args output(Args args, int unit) const {
    if (whole_in_split(unit) && finish.out.c != nullptr) {
      args.c = finish.out.c;
      args.ldc = finish.out.ldc;
      args.alpha = finish.out.alpha;
      args.beta = finish.out.beta;
      return args;
    }
    args.c += static_cast<long long>(slice(unit)) * args.m * args.ldc;
    return args;
  }
};

/// The parts of each tile of a tail split (WorkUnits::whole_tiles) for the summing kernel
/// (common/slice_sums.cuh, the SliceCount of a launch captured into a graph): none for a whole
/// tile, which its unit wrote into C itself, `slices` for the others. Tiles numbered row by row,
/// as that kernel takes them.
struct TailParts {
  int tile_rows = 0;    ///< rows of a tile
  int tile_cols = 0;    ///< columns of a tile
  int tiles_n = 1;      ///< tiles across C
  int tiles_m = 1;      ///< tiles down C
  int group_rows = 1;   ///< the grouped order's rows (grouped_tile)
  int whole_tiles = 0;  ///< tiles with K whole, first in the grouped order
  int slices = 1;       ///< slices of every other tile

  /// The parts of tile `tile` (row by row).
  __host__ __device__ int of(int tile) const {
    const int grouped = grouped_index(tile / tiles_n, tile % tiles_n, tiles_m, tiles_n, group_rows);
    return grouped < whole_tiles ? 0 : slices;
  }
  /// The first row of C in a tile with parts: the first of the group of tile rows (grouped_tile)
  /// that holds the first split tile, as every later tile lies in that group or below it.
  int first_row_with_parts() const {
    return whole_tiles / (group_rows * tiles_n) * group_rows * tile_rows;
  }
};

inline WorkUnits WorkUnits::of(const cudalabs::GemmShape& shape, int bm, int bn, int bk, int slices,
                               int whole_tiles) {
  const WorkUnits units{(shape.m + bm - 1) / bm, (shape.n + bn - 1) / bn, (shape.k + bk - 1) / bk,
                        slices, slices > 1 ? whole_tiles : 0};
  if (!slices_fit(units.k_blocks, slices))
    throw std::invalid_argument("lab11 work units: slices = " + std::to_string(slices) +
                                " does not cut " + std::to_string(units.k_blocks) +
                                " k-blocks into non-empty slices");
  if (whole_tiles < 0 || (slices > 1 && whole_tiles >= units.tiles()))
    throw std::invalid_argument("lab11 work units: whole_tiles = " + std::to_string(whole_tiles) +
                                " leaves no tile of " + std::to_string(units.tiles()) +
                                " to cut into slices");
  return units;
}

}  // namespace lab11
