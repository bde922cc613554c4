/// @file labs/05_register_tiling/lab.h
/// @brief Lab 05: register tiling. Each thread computes several outputs from operands held in
/// registers.
#pragma once

#include "common/gemm_variant.h"

#include <span>

/// Lab 05: register tiling and instruction-level parallelism.
namespace lab05 {

/// Floats of padding at the end of each row of the transposed A tile: spreads the tile's stores
/// over the banks while keeping rows 16-byte aligned.
inline constexpr int kPadA = 4;

/// The lab's variants:
/// - `rt_1d`: 64 x 64 block tile, each of 512 threads computes 8 outputs down a column (TM = 8,
///   TN = 1): per step along K it reuses one B value from a register 8 times.
/// - `rt_2d`: 128 x 128 block tile, each of 256 threads computes an 8 x 8 patch (TM = TN = 8): per
///   step it loads 8 A and 8 B values into registers and does their 64 products.
std::span<const cudalabs::GemmVariant> variants();

}  // namespace lab05
