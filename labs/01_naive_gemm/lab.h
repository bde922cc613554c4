/// @file labs/01_naive_gemm/lab.h
/// @brief Lab 01: the naive GEMM, one thread per element of C, and why the thread-to-index mapping
/// matters.
#pragma once

#include "common/gemm_variant.h"

#include <span>

/// Lab 01: naive GEMM.
namespace lab01 {

/// Threads per block along x (one warp) and along y.
inline constexpr int kBlockX = 32;
/// Threads per block along y.
inline constexpr int kBlockY = 8;

/// The lab's variants, in teaching order:
/// - `naive_strided`: threadIdx.x walks down a column of C, so the 32 threads of a warp read 32
///   different rows of A and write 32 different rows of C: every access is a separate transaction.
/// - `naive_coalesced`: threadIdx.x walks along a row of C, so a warp reads one A element
/// (broadcast),
///   32 consecutive B elements and writes 32 consecutive C elements: one transaction each.
std::span<const cudalabs::GemmVariant> variants();

}  // namespace lab01
