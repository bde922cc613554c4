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

/// A tensor map of the NHWC activations at `activations` (batch x height x width x channels,
/// 16-byte aligned, channels a multiple of 64), read in boxes of kBoxColumns channels x width x
/// box_rows x box_images: box_rows x box_images whole image rows of pixels, each pixel's 64
/// channels one 128-byte swizzled row in shared memory, zeros outside the tensor (at negative
/// coordinates too). Throws std::invalid_argument or std::runtime_error as bf16_tensor_map does.
CUtensorMap bf16_activation_map(const __nv_bfloat16* activations, int batch, int height, int width,
                                int channels, int box_rows, int box_images);

}  // namespace lab11
