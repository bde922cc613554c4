/// @file labs/03_transposed_layouts/lab.h
/// @brief Lab 03: storing the A and/or B tile transposed in shared memory ([SGEMM-3080]'s RR, RC,
/// CR, CC).
#pragma once

#include "common/gemm_variant.h"

#include <span>

/// Lab 03: transposed shared-memory layouts.
namespace lab03 {

/// Edge of the square tiles; the block has kTile x kTile threads (16 x 16, as in [SGEMM-3080]).
inline constexpr int kTile = 16;

/// The lab's variants, named as in [SGEMM-3080]: the first letter is the layout of the A tile in
/// shared memory, the second that of the B tile; R keeps the global (row-major) layout, C stores
/// the tile transposed (column-major). threadIdx.x walks the rows of the C tile, as in the seed's
/// kernels.
/// - `RR`: a_tile[row][k], b_tile[k][col]
/// - `RC`: a_tile[row][k], b_tile[col][k] (B transposed)
/// - `CR`: a_tile[k][row], b_tile[k][col] (A transposed)
/// - `CC`: a_tile[k][row], b_tile[col][k] (both transposed)
std::span<const cudalabs::GemmVariant> variants();

}  // namespace lab03
