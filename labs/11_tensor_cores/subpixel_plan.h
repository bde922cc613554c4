/// @file labs/11_tensor_cores/subpixel_plan.h
/// @brief How step 7 (`tconv_subpixel_bf16`, `tconv_subpixel_tf32`) runs a layer: its tile, whether
/// a stage's A box serves a whole column of taps (the halo), its stages in shared memory. Host
/// code, from the layer's sizes alone; tested on the CPU.
#pragma once

#include "common/reference_dcgan.h"
#include "labs/09_dcgan/subpixel.h"
#include "tiles.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace lab11 {

/// Shared memory a block may have on Hopper (227 KiB, opted in).
inline constexpr std::size_t kSubpixelSharedLimit = 227 * 1024;

/// Shared memory where the epilogue stages its output for the copy engine's stores: 16 KiB a
/// consumer (two boxes of 64 pixels x 128 bytes), 1024-aligned for the swizzle.
inline constexpr std::size_t kSubpixelStagingBytes = 2 * 16 * 1024;

/// How step 7 runs one layer: the launcher's choice, from the layer's sizes alone.
///
/// A tile is BM = 128 x row_blocks input pixels of whole image rows (R rows of one image, or whole
/// images) by `width` output channels. Each phase's GEMM reads A once per tap at the tap's shifted
/// position: 25 reads of the input a layer when each tap has its own box. With the halo, a stage
/// holds one box per column of taps, R + 2 rows high (one row above and below the tile's), and the
/// column's taps_y taps read it at row offsets 0, 1, 2 (whole rows: W x 128 bytes, so a multiple
/// of the swizzle's 1024 bytes when W is a multiple of 8): 10 reads of R + 2 rows instead of 25 of
/// R, about 2.5 times fewer bytes of A from L2, which bounds these layers. It needs W a multiple
/// of 8, 64-pixel blocks that stay in one image (R x W a multiple of 64), R >= 2 (else the halo
/// rows cost more than they save) and two stages in shared memory.
struct SubpixelPlan {
  int width = 0;                ///< output channels per tile (BN): 64, 128 or 256
  int row_blocks = 0;           ///< 64-pixel blocks per consumer: BM = 128 x row_blocks
  int tile_pixels = 0;          ///< BM
  int tile_rows = 0;            ///< R: the tile's rows of one image (H for whole images)
  int box_images = 0;           ///< images per tile and per A box
  bool halo = false;            ///< a box per column of taps (see above), else a box per tap
  int box_rows = 0;             ///< rows of the A box per image: R, + 2 with the halo
  std::size_t a_box_bytes = 0;  ///< bytes of the A box
  std::size_t stage_bytes = 0;  ///< A box and B's taps (3 with the halo, else 1), 1024-aligned
  int stages = 0;               ///< stages that fit in shared memory, at most kSubpixelMaxStages
  /// Dynamic shared memory beside the stages: alignment, two barriers a stage, the batch norm's
  /// scale and shift of every output channel (the solution's epilogue reads them there), and with
  /// tiles of image rows the epilogue's staging (staging_bytes) and its alignment.
  std::size_t fixed_bytes = 0;
  std::size_t staging_bytes = 0;  ///< kSubpixelStagingBytes with tiles of image rows, else 0
  std::size_t shared_bytes = 0;   ///< dynamic shared memory: stages and fixed_bytes
  /// Tiles of BM images at one input position (i, j) instead of BM pixels of whole rows: a k
  /// step is one tap, and only the taps that reach inside the image are multiplied (near the
  /// edges of a small image the others are a large share: 28 % of tconv1's at 4 x 4). Chosen,
  /// where the kernel takes it, when it multiplies fewer tiles' taps than whole rows would
  /// (by_position_pays); never with the halo.
  bool by_position = false;
};

namespace detail {

/// "lab11 tconv_subpixel: what = value expected": the launcher's one line for a size it refuses.
inline std::string subpixel_error(const char* what, int value, const std::string& expected) {
  return std::string("lab11 tconv_subpixel: ") + what + " = " + std::to_string(value) + " " +
         expected;
}

/// Whether a tile of `tile_pixels` pixels is whole image rows: W divides them, and H x W divides
/// them or is a multiple of them.
inline bool whole_rows(const cudalabs::dcgan::TconvShape& shape, int tile_pixels) {
  const long long image_pixels = static_cast<long long>(shape.height) * shape.width;
  return tile_pixels % shape.width == 0 &&
         (tile_pixels % image_pixels == 0 || image_pixels % tile_pixels == 0);
}

/// Fills the plan's box and stages with the halo or without; false when fewer than two stages fit.
inline bool fill_stages(int width, bool halo, SubpixelPlan& plan) {
  constexpr std::size_t kRowBytes = 128;  // a pixel's channels of one stage, BF16 or TF32
  plan.halo = halo;
  plan.box_rows = plan.tile_rows + (halo ? 2 : 0);
  plan.a_box_bytes = kRowBytes * plan.box_images * plan.box_rows * width;
  const std::size_t b_bytes = kRowBytes * plan.width * (halo ? 3 : 1);  // taps_y is at most 3
  plan.stage_bytes = (plan.a_box_bytes + b_bytes + 1023) / 1024 * 1024;
  plan.stages = static_cast<int>(std::min<std::size_t>(
      kSubpixelMaxStages, (kSubpixelSharedLimit - plan.fixed_bytes) / plan.stage_bytes));
  plan.shared_bytes = plan.stages * plan.stage_bytes + plan.fixed_bytes;
  return plan.stages >= 2;
}

/// Tiles x taps multiplied by image rows: every tile all 25 taps of its phase, the ones past the
/// edge on the copy engine's zeros.
inline long long row_tile_taps(const cudalabs::dcgan::TconvShape& shape, int tile_pixels) {
  const long long pixels = static_cast<long long>(shape.batch) * shape.height * shape.width;
  return (pixels + tile_pixels - 1) / tile_pixels * 25;
}
/// Tiles x taps multiplied by position: each of the H x W positions' tiles of images only the taps
/// that reach inside the image.
inline long long position_tile_taps(const cudalabs::dcgan::TconvShape& shape, int tile_pixels) {
  using namespace lab09::subpixel;
  long long reaching = 0;  // over the four phases and every position: rows' taps x columns'
  for (const int py : {0, 1}) {
    long long rows = 0, columns = 0;
    int first = 0, count = 0;
    for (int i = 0; i < shape.height; ++i) {
      reaching_taps(py, i, shape.height, first, count);
      rows += count;
    }
    for (const int px : {0, 1}) {
      columns = 0;
      for (int j = 0; j < shape.width; ++j) {
        reaching_taps(px, j, shape.width, first, count);
        columns += count;
      }
      reaching += rows * columns;
    }
  }
  return (shape.batch + tile_pixels - 1) / tile_pixels * reaching;
}

/// Whether tiles by position multiply fewer taps than tiles of image rows.
inline bool by_position_pays(const cudalabs::dcgan::TconvShape& shape, int tile_pixels) {
  return position_tile_taps(shape, tile_pixels) < row_tile_taps(shape, tile_pixels);
}

/// The plan's shared memory beside its stages for `out_channels` channels and `staging` bytes of
/// staging: the base's 1024-byte alignment, two barriers a stage, a scale and a shift a channel,
/// and, where there is staging, its own 1024-byte alignment.
inline std::size_t fixed_bytes_of(int out_channels, std::size_t staging) {
  return 1024 + 2 * kSubpixelMaxStages * 8 +
         2 * sizeof(float) * static_cast<std::size_t>(out_channels) +
         (staging > 0 ? 1024 + staging : 0);
}

/// A plan by position: a box of one pixel of tile_pixels images, a tap's B a stage; its epilogue
/// stores its tiles itself, so it has no staging.
inline void fill_position_stages(int out_channels, SubpixelPlan& plan) {
  plan.by_position = true;
  plan.staging_bytes = 0;
  plan.fixed_bytes = fixed_bytes_of(out_channels, 0);
  plan.tile_rows = 1;
  plan.box_rows = 1;
  plan.box_images = plan.tile_pixels;
  plan.a_box_bytes = 128 * static_cast<std::size_t>(plan.tile_pixels);
  plan.stage_bytes =
      (plan.a_box_bytes + 128 * static_cast<std::size_t>(plan.width) + 1023) / 1024 * 1024;
  plan.stages = static_cast<int>(std::min<std::size_t>(
      kSubpixelMaxStages, (kSubpixelSharedLimit - plan.fixed_bytes) / plan.stage_bytes));
  plan.shared_bytes = plan.stages * plan.stage_bytes + plan.fixed_bytes;
}

}  // namespace detail

/// The plan for `shape`; `may_by_position`: the kernel takes tiles by position (the solution's
/// does). Throws std::invalid_argument naming the size it cannot take (K not a multiple of 64, or
/// no tile of whole image rows).
inline SubpixelPlan plan_subpixel(const cudalabs::dcgan::TconvShape& shape,
                                  bool may_by_position = false) {
  SubpixelPlan plan;
  const int k = shape.out_channels;
  // One tile across K where it fits, else the widest width that divides K.
  plan.width = k == 64 || k == 128 ? k
               : k % 256 == 0      ? 256
               : k % 128 == 0      ? 128
               : k % 64 == 0       ? 64
                                   : 0;
  if (plan.width == 0)
    throw std::invalid_argument(
        detail::subpixel_error("out_channels", k, "is not a multiple of 64"));
  // Two 64-pixel blocks a consumer where the accumulators fit (128 FP32 a thread: 256 x 64 or
  // 256 x 128 tiles), so that a stage's B serves twice the pixels; else one.
  for (const int blocks : {plan.width == 256 ? 1 : 2, 1}) {
    if (plan.row_blocks == 0 && detail::whole_rows(shape, 128 * blocks)) plan.row_blocks = blocks;
  }
  if (plan.row_blocks == 0) {
    throw std::invalid_argument(detail::subpixel_error(
        "width", shape.width,
        "and height " + std::to_string(shape.height) + " do not cut into tiles of 128" +
            (plan.width == 256 ? "" : " or 256") + " pixels of whole image rows"));
  }
  plan.tile_pixels = 128 * plan.row_blocks;
  plan.staging_bytes = kSubpixelStagingBytes;
  plan.fixed_bytes = detail::fixed_bytes_of(k, plan.staging_bytes);
  const int image_pixels = shape.height * shape.width;
  const bool part_of_an_image = image_pixels >= plan.tile_pixels;
  plan.tile_rows = part_of_an_image ? plan.tile_pixels / shape.width : shape.height;
  plan.box_images = part_of_an_image ? 1 : plan.tile_pixels / image_pixels;
  const bool halo_fits = shape.width % 8 == 0 && plan.tile_rows * shape.width % 64 == 0 &&
                         plan.tile_rows >= 2 && plan.tile_rows + 2 <= 256;
  if (!(halo_fits && detail::fill_stages(shape.width, true, plan))) {
    detail::fill_stages(shape.width, false, plan);
    if (may_by_position && detail::by_position_pays(shape, plan.tile_pixels))
      detail::fill_position_stages(k, plan);
  }
  return plan;
}

}  // namespace lab11
