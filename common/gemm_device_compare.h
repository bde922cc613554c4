/// @file gemm_device_compare.h
/// @brief compare_gemm on the GPU, for a C that is large enough to stay there.
///
/// The checks of large problems compare every element with cuBLAS (gemm_check.h). Copying C to
/// the host and comparing there costs more than the kernel being checked; this does the same
/// comparison where C is, with the same verdict: per element against gamma * magnitude, the
/// unwritten (poisoned) and non-finite elements counted, the worst element kept, the relative L2
/// error over the written ones. Each fixed chunk of elements is reduced in a fixed order and the
/// chunks are combined on the host in order, so the result is the same on every GPU and run.
#pragma once

#include "common/gemm_compare.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <vector>

namespace cudalabs {

/// The reference a device C is compared with: value = product + beta * old_c and magnitude =
/// product_magnitude + |beta| |old_c| (in double, per element), all row-major with C's ldc. With
/// `product` null only the unwritten elements and the padding are counted (a quick "was anything
/// written" before the references are built).
struct DeviceGemmReference {
  int m = 0;                                 ///< rows of C
  int n = 0;                                 ///< columns of C
  int ldc = 0;                               ///< C's leading dimension
  const float* product = nullptr;            ///< alpha * A * B (cuBLAS), or null
  const float* product_magnitude = nullptr;  ///< |alpha| |A| |B| (cuBLAS)
  const float* old_c = nullptr;  ///< the C the product was added to (null when beta == 0)
  float beta = 0.0f;             ///< its scale
};

/// What a device comparison found: the comparison, and the padding elements (columns n to ldc - 1
/// of the m rows) whose bits differ from `padding_before`'s (the poison pattern when it is null).
struct DeviceGemmComparison {
  GemmComparison comparison;         ///< the comparison of the m x n elements
  std::int64_t padding_changes = 0;  ///< padding elements whose bits changed
};

/// Compares the device matrix `c` (leading dimension reference.ldc) with `reference` for a product
/// of reduction length k; `padding_before` (device, C's layout) is what the padding held before the
/// launch. Synchronizes with the device.
DeviceGemmComparison compare_gemm_device(const float* c, const DeviceGemmReference& reference,
                                         int k, GemmTolerance tolerance,
                                         const float* padding_before = nullptr);

/// C's elements at `positions` (row * n + col), copied to the host in order: the samples a CPU
/// reference checks.
std::vector<float> gather_gemm_elements(const float* c, int n, int ldc,
                                        std::span<const std::int64_t> positions);

}  // namespace cudalabs
