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

}  // namespace lab11
