/// @file labs/06_double_buffering/lab.h
/// @brief Lab 06: double buffering. Load the next tile while computing the current one.
#pragma once

#include "common/gemm_variant.h"

#include <span>

/// Lab 06: double buffering.
namespace lab06 {

/// Floats of padding at the end of each row of the transposed A tile (as in lab 05).
inline constexpr int kPadA = 4;
/// Shared-memory stages of the cp.async variant: tiles in flight while one is computed.
inline constexpr int kAsyncStages = 3;

/// The lab's variants, both 128 x 128 x 8 block tiles with 8 x 8 outputs per thread (lab 05's
/// rt_2d):
/// - `prefetch_regs`: the next tile is loaded from global memory into registers while the current
///   one is computed, then written to the second of two shared buffers: one barrier per step.
/// - `cp_async`: the same overlap with cp.async (compute capability 8.0+; a plain copy elsewhere):
///   copies go straight from global to shared memory, kAsyncStages tiles deep, no registers
///   involved.
std::span<const cudalabs::GemmVariant> variants();

}  // namespace lab06
