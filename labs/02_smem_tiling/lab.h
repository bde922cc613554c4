/// @file labs/02_smem_tiling/lab.h
/// @brief Lab 02: shared-memory tiling, and padding against bank conflicts.
#pragma once

#include "common/gemm_variant.h"

#include <span>

/// Lab 02: shared-memory tiling.
namespace lab02 {

/// Edge of the square tile of C a block computes, and of the A and B tiles it stages in shared
/// memory; the block has kTile x kTile threads, one per element of its C tile.
inline constexpr int kTile = 32;

/// The lab's variants, in teaching order (which of them conflict in shared memory, and how many
/// ways, is the handout's prediction; its answer comes after the measurements):
/// - `tiled_strided`: tiles in shared memory, threadIdx.x walking down the rows of the tile (seed
///   001's mapping).
/// - `tiled_strided_padded`: the same with each shared row padded by one float.
/// - `tiled_coalesced`: threadIdx.x walking along the rows of the tile.
std::span<const cudalabs::GemmVariant> variants();

}  // namespace lab02
