/// @file reference_gemm.h
/// @brief The CPU reference GEMM: float inputs, double accumulation, blocked and parallel (OpenMP).
#pragma once

#include "common/gemm_types.h"

#include <cstdint>
#include <span>
#include <vector>

namespace cudalabs {

/// A GEMM's inputs in host memory (row-major, leading dimensions as in GemmArgs).
struct HostGemmInputs {
  GemmShape shape;           ///< m, n, k
  float alpha = 1.0f;        ///< scale of A * B
  float beta = 0.0f;         ///< scale of the old C (C is not read when beta == 0)
  std::span<const float> a;  ///< A, at least matrix_span(m, k, lda) elements
  int lda = 0;               ///< leading dimension of A
  std::span<const float> b;  ///< B, at least matrix_span(k, n, ldb) elements
  int ldb = 0;               ///< leading dimension of B
  std::span<const float>
      c;  ///< the old C, at least matrix_span(m, n, ldc) elements (may be empty when beta == 0)
  int ldc = 0;  ///< leading dimension of C
};

/// Expected values of some or all elements of C, with the scale each error is measured against.
struct ReferenceValues {
  int m = 0;  ///< rows of C
  int n = 0;  ///< columns of C
  /// Row-major positions (row * n + col) of the elements held; empty when every element is held in
  /// row-major order.
  std::vector<std::int64_t> positions;
  /// alpha * sum_p A(i,p) B(p,j) + beta * C(i,j), accumulated in double.
  std::vector<double> value;
  /// |alpha| * sum_p |A(i,p)| |B(p,j)| + |beta| |C(i,j)|: the scale of the rounding error any
  /// float32 evaluation may make, whatever its summation order.
  std::vector<double> magnitude;

  /// True when every element of C is held.
  bool dense() const { return positions.empty(); }
  /// Number of elements held.
  std::size_t size() const { return value.size(); }
  /// Row of the i-th element held.
  int row_of(std::size_t i) const {
    return dense() ? static_cast<int>(i / n) : static_cast<int>(positions[i] / n);
  }
  /// Column of the i-th element held.
  int col_of(std::size_t i) const {
    return dense() ? static_cast<int>(i % n) : static_cast<int>(positions[i] % n);
  }
};

/// Computes every element of C in double: blocked over rows, columns and the reduction so that a
/// panel of B stays in cache while a block of rows of A streams past, parallel over row blocks.
/// Throws std::invalid_argument for inconsistent inputs (spans too short, bad leading dimensions).
ReferenceValues reference_gemm(const HostGemmInputs& inputs);

/// Computes only the elements at `positions` (row * n + col), each by a straight double loop.
/// Used for large problems, where the full reference would take minutes.
ReferenceValues reference_gemm_at(const HostGemmInputs& inputs,
                                  std::vector<std::int64_t> positions);

/// Adds beta * C to a product reference computed with beta = 0: value += beta * C(i, j) and
/// magnitude += |beta| |C(i, j)| at every element held. Lets one product serve several betas.
/// `c` is row-major with leading dimension `ldc`.
ReferenceValues add_scaled_c(ReferenceValues product, float beta, std::span<const float> c,
                             int ldc);

/// Positions for a sampled check: every corner and edge element class (first and last rows and
/// columns, where partial tiles live) plus `random_count` positions drawn with `seed`.
std::vector<std::int64_t> sample_positions(int m, int n, int random_count, std::uint64_t seed);

}  // namespace cudalabs
