/// @file labs/11_tensor_cores/rgb_bands.h
/// @brief How the RGB layer (dcgan_rgb_layer.cu) splits an image's superpixel rows into bands, by
/// the wave model. Host code, from the layer's sizes and the GPU's resident warps alone; tested on
/// the CPU.
#pragma once

#include <algorithm>

namespace lab11 {

/// Superpixel rows a band has at least, where an image has more than one band: a band reads the
/// input row on either side of it too.
inline constexpr int kRgbMinBandRows = 4;

/// An image's superpixel rows in `bands` bands of `band_rows` rows, the last band the rest.
struct RgbBands {
  int bands = 1;      ///< bands an image
  int band_rows = 1;  ///< superpixel rows a band (the last one's may be fewer)
};

/// The split of `height` superpixel rows when a band of an image is `units_a_band` warps' work
/// (images x column groups) and `resident_warps` warps run at once. A unit of a band of `rows`
/// rows reads rows + 2 input rows (one band: rows), and a warp's units take at least one unit's
/// time, so the split takes the least of max(units x rows read / resident warps, rows read), the
/// fewest bands on a tie: bands serve where a unit an image would leave warps idle (a few images),
/// not to even out the last of many waves (its warps run faster, sharing their SMs with fewer).
inline RgbBands plan_rgb_bands(int height, long long units_a_band, long long resident_warps) {
  RgbBands best{1, height};
  double best_cost = -1.0;
  for (int split = 1; split <= height; ++split) {
    const int rows = (height + split - 1) / split;
    if (split > 1 && rows < kRgbMinBandRows) break;
    const int bands = (height + rows - 1) / rows;
    if (bands != split) continue;  // the same bands as a smaller split
    const double read = rows + (bands > 1 ? 2 : 0);
    const double cost = std::max(static_cast<double>(units_a_band) * bands * read /
                                     static_cast<double>(std::max(resident_warps, 1LL)),
                                 read);
    if (best_cost < 0.0 || cost < best_cost) {
      best = {bands, rows};
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace lab11
