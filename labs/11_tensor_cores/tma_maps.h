/// @file labs/11_tensor_cores/tma_maps.h
/// @brief Tensor maps for the copy engine (TMA): how a row-major BF16 matrix is cut into boxes.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>

namespace lab11 {

/// Columns of every box: 64 BF16 = 128 bytes, the widest row the 128-byte swizzle allows.
inline constexpr int kBoxColumns = 64;

/// A tensor map of the row-major `rows` x `cols` matrix at `matrix` (leading dimension `ld`),
/// read in boxes of `box_rows` x kBoxColumns elements that land in shared memory 128-byte
/// swizzled; elements outside the matrix arrive as zeros. TMA needs `matrix` 16-byte aligned and
/// `ld` a multiple of 8: throws std::invalid_argument naming the argument otherwise, and
/// std::runtime_error when the driver refuses the map.
CUtensorMap bf16_tensor_map(const __nv_bfloat16* matrix, int rows, int cols, int ld, int box_rows);

/// A tensor map of the row-major FP32 `rows` x `cols` matrix at `matrix` (leading dimension `ld`,
/// a multiple of 4), read in boxes of `box_rows` x 32 elements (128 bytes), 128-byte swizzled,
/// zeros outside; the checks of bf16_tensor_map.
CUtensorMap fp32_tensor_map(const float* matrix, int rows, int cols, int ld, int box_rows);

/// A tensor map of the NHWC activations at `activations` (batch x height x width x channels,
/// 16-byte aligned, channels a multiple of the 128 bytes of one box row: 64 BF16 or 32 FP32), read
/// in boxes of one 128-byte row of channels x box_columns (0: width) x box_rows x box_images:
/// box_rows x box_images whole image rows of pixels (or, one column and one row, one pixel of
/// box_images images), each pixel's channels one swizzled row in shared memory, zeros outside the
/// tensor (at negative coordinates too). Throws std::invalid_argument or std::runtime_error as
/// bf16_tensor_map does.
CUtensorMap activation_map(const __nv_bfloat16* activations, int batch, int height, int width,
                           int channels, int box_rows, int box_images, int box_columns = 0);
/// The same for FP32 activations (TF32 inputs): boxes of 32 channels.
CUtensorMap activation_map(const float* activations, int batch, int height, int width, int channels,
                           int box_rows, int box_images, int box_columns = 0);

/// Pixels of one box of phase_output_map: a 64-pixel block of a sub-pixel tile.
inline constexpr int kPhaseBoxPixels = 64;

/// A tensor map of one transposed convolution's BF16 output (batch x 2 height x 2 width x
/// channels, NHWC, 16-byte aligned, channels a multiple of 64) seen by sub-pixel phase: 5-D, (c,
/// px, j, py, r) is channel c of output pixel (2 i + py, 2 j + px) of image r / height, i = r %
/// height. Written (TMA stores) in boxes of 64 channels (one 128-byte swizzled row a pixel in
/// shared memory) x kPhaseBoxPixels pixels of one phase: min(width, 64) columns x max(1, 64 /
/// width) rows, width a power of two; what lies past the tensor is not written. Throws as
/// bf16_tensor_map does.
CUtensorMap phase_output_map(__nv_bfloat16* output, int batch, int height, int width, int channels);

}  // namespace lab11
