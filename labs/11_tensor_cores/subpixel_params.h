/// @file labs/11_tensor_cores/subpixel_params.h
/// @brief What `subpixel_wgmma_kernel` (step 7) is told about a layer besides its tensor maps,
/// and the index arithmetic its producer and consumers share with the launcher.
#pragma once

#include "labs/09_dcgan/subpixel.h"

#include <cuda_bf16.h>

namespace lab11 {

/// One layer's sizes, tiles and epilogue, as the kernel reads them; T is the activations' type:
/// __nv_bfloat16 (BF16 inputs) or float (TF32 inputs, stored rounded to TF32).
template <class T>
struct SubpixelParams {
  int batch;           ///< images
  int height;          ///< input rows H
  int width;           ///< input columns W
  int in_channels;     ///< C, a multiple of 64 (BF16) or 32 (TF32)
  int out_channels;    ///< K
  int row_tiles;       ///< tiles of BM pixels per phase (by position: of BM images per position)
  int column_tiles;    ///< tiles of BN channels
  int halo;            ///< 1: a stage is a column of taps (subpixel_plan.h), 0: one tap
  int image_pixels;    ///< a tile's pixels of one image: R x W (R rows, or H for whole images)
  int box_pixels;      ///< the A box's pixels of one image: (R + 2) x W with the halo, else R x W
  int a_box_bytes;     ///< bytes of a stage's A box (B's taps follow it)
  int stage_bytes;     ///< bytes of a stage, a multiple of 1024
  int stages;          ///< stages in the ring, at most SubpixelTile::kMaxStages
  T* output;           ///< batch x 2H x 2W x K
  const float* scale;  ///< per output channel
  const float* shift;  ///< per output channel
  int relu;            ///< 1: ReLU after scale and shift
  int by_position;     ///< 1: tiles by position (SubpixelPlan::by_position), 0: of image rows
  int positions;       ///< H x W by position, else 1: items are 4 x positions x row x column tiles
  /// 1: the launcher built the output's phase map (phase_output_map) and the plan's shared memory
  /// holds the staging (SubpixelPlan::staging_bytes), so the epilogue may hand its tiles to the
  /// copy engine; 0: it stores them itself.
  int store_by_copy;
};

/// Channels of one stage: one 128-byte swizzled row (64 BF16, 32 TF32).
template <class T>
__host__ __device__ constexpr int stage_channels() {
  return 128 / static_cast<int>(sizeof(T));
}

/// The first row of phase z's B in the packed filter (all four phases stacked: taps x C rows
/// each, K columns).
__host__ __device__ inline int phase_first_row(int z, int in_channels) {
  int row = 0;
  for (int before = 0; before < z; ++before)
    row += lab09::subpixel::taps(lab09::subpixel::phase_row(before)) *
           lab09::subpixel::taps(lab09::subpixel::phase_col(before)) * in_channels;
  return row;
}

/// K steps of phase z, each one stage of `channels` channels: one per tap, or with the halo one
/// per column of taps (its taps_y taps share the stage's box), times C / channels.
__host__ __device__ inline int phase_k_steps(int z, int in_channels, int channels, bool halo) {
  const int columns = lab09::subpixel::taps(lab09::subpixel::phase_col(z));
  const int rows = halo ? 1 : lab09::subpixel::taps(lab09::subpixel::phase_row(z));
  return rows * columns * (in_channels / channels);
}

}  // namespace lab11
