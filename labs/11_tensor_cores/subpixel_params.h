/// @file labs/11_tensor_cores/subpixel_params.h
/// @brief What `subpixel_wgmma_kernel` (step 7) is told about a layer besides its tensor maps,
/// and the index arithmetic its producer and consumers share with the launcher.
#pragma once

#include "labs/09_dcgan/subpixel.h"

#include <cuda_bf16.h>

namespace lab11 {

/// One layer's sizes and epilogue, as the kernel reads them; T is the activations' type:
/// __nv_bfloat16 (BF16 inputs) or float (TF32 inputs, stored rounded to TF32).
template <class T>
struct SubpixelParams {
  int batch;           ///< images
  int height;          ///< input rows H
  int width;           ///< input columns W
  int in_channels;     ///< C, a multiple of 64
  int out_channels;    ///< K
  int box_rows;        ///< image rows per A box (H when a box spans several images)
  int box_images;      ///< images per A box
  int row_tiles;       ///< tiles of BM pixels per phase
  int column_tiles;    ///< tiles of BN channels
  T* output;           ///< batch x 2H x 2W x K
  const float* scale;  ///< per output channel
  const float* shift;  ///< per output channel
  int relu;            ///< 1: ReLU after scale and shift
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

/// K steps of phase z, each one stage of `channels` channels: its taps times C / channels.
__host__ __device__ inline int phase_k_steps(int z, int in_channels, int channels) {
  return lab09::subpixel::taps(lab09::subpixel::phase_row(z)) *
         lab09::subpixel::taps(lab09::subpixel::phase_col(z)) * (in_channels / channels);
}

}  // namespace lab11
