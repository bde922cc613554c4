/// @file labs/11_tensor_cores/best_width.h
/// @brief How `best` picks the warp-specialized kernel's tile width (64, 128 or 256 columns) for a
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

/// The width whose rounds (ceil(tiles / sms) per SM) take the least time on a GPU of `sms` SMs: a
/// tile `width` wide does width / 256 of a 256-wide tile's work at specialized_tile_rate(width) of
/// its rate; of equal times, the wider tile (fewer units to walk).
inline int best_width(const cudalabs::GemmShape& shape, int sms) {
  int best = 0;
  double best_time = 0.0;
  for (const int width : kSpecializedWidths) {  // narrowest first: `<=` keeps the wider of equals
    const double rounds = static_cast<double>(
        cudalabs::ceil_div<long long>(specialized_tile_count(shape, width), sms));
    const double time = rounds * width / 256.0 / specialized_tile_rate(width);
    if (best == 0 || time <= best_time) {
      best = width;
      best_time = time;
    }
  }
  return best;
}

}  // namespace lab11
