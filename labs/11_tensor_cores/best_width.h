/// @file labs/11_tensor_cores/best_width.h
/// @brief How `best` picks the warp-specialized kernel's tile width (128 or 256 columns) for a
/// shape: a persistent block works through its share of the tiles in rounds, so the shape's time is
/// the busiest SM's rounds times one tile's time.
#pragma once

#include "common/gemm_types.h"
#include "common/launch_utils.h"
#include "tiles.h"

namespace lab11 {

/// Tiles of C the warp-specialized kernel computes for `shape` with tiles 128 rows by `width`
/// columns.
inline long long specialized_tile_count(const cudalabs::GemmShape& shape, int width) {
  return static_cast<long long>(cudalabs::ceil_div(shape.m, SpecializedTile<256>::BM)) *
         cudalabs::ceil_div(shape.n, width);
}

/// The width whose rounds (ceil(tiles / sms) per SM) take less time on a GPU of `sms` SMs: a
/// 128-wide tile does half the work of a 256-wide one at kNarrowTileRate of its rate.
inline int best_width(const cudalabs::GemmShape& shape, int sms) {
  const double rounds_256 =
      static_cast<double>(cudalabs::ceil_div<long long>(specialized_tile_count(shape, 256), sms));
  const double rounds_128 =
      static_cast<double>(cudalabs::ceil_div<long long>(specialized_tile_count(shape, 128), sms));
  return rounds_128 * 0.5 / kNarrowTileRate < rounds_256 ? 128 : 256;
}

}  // namespace lab11
