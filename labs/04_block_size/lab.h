/// @file labs/04_block_size/lab.h
/// @brief Lab 04: the tiled GEMM templated on its block edge, and what the block size does to
/// occupancy.
#pragma once

#include "common/gemm_variant.h"

#include <span>

/// Lab 04: block size.
namespace lab04 {

/// The lab's variants, one per block edge: `block_4x4`, `block_8x8`, `block_16x16`, `block_32x32`.
/// Each is the coalesced shared-memory tiled GEMM (lab 02's `tiled_coalesced`) with an edge x edge
/// block computing an edge x edge tile of C. Add a line in launch.cuh to try another edge.
std::span<const cudalabs::GemmVariant> variants();

}  // namespace lab04
