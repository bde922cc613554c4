/// @file drawn_reference.h
/// @brief The CPU reference at sampled elements of a GEMM whose inputs were drawn on the GPU.
///
/// fill_uniform_device (device_fill.h) draws element i of an input as uniform_at(seed, i): the CPU
/// draws the same values for the rows and columns a sampled check needs, without the whole input.
#pragma once

#include "common/gemm_types.h"
#include "common/reference_gemm.h"

#include <cstdint>
#include <vector>

namespace cudalabs {

/// A row-major matrix drawn by fill_uniform or fill_uniform_device with `seed`, starting at draw
/// `first`, leading dimension `ld`; `rounding` is what the GPU reads of each value (round_to_input:
/// BF16 and FP16 inputs are rounded to nearest), the identity when null.
struct DrawnMatrix {
  std::uint64_t seed = 0;              ///< the seed it was drawn with
  std::int64_t first = 0;              ///< the draw of its element (0, 0)
  int ld = 0;                          ///< its leading dimension
  float (*rounding)(float) = nullptr;  ///< what the GPU reads of a value; null: the value itself

  /// Element (row, col).
  float at(int row, int col) const;
};

/// The reference (value and magnitude, as reference_gemm_at computes them) of alpha * A * B +
/// beta * C at `positions` (row * n + col), the rows in parallel; C is read only when beta != 0.
ReferenceValues drawn_gemm_reference(const GemmShape& shape, float alpha, const DrawnMatrix& a,
                                     const DrawnMatrix& b, float beta, const DrawnMatrix& c,
                                     std::vector<std::int64_t> positions);

}  // namespace cudalabs
