/// @file gemm_compare.h
/// @brief Compares a float32 C with its reference: worst element, error bound, relative L2 error.
#pragma once

#include "common/reference_gemm.h"

#include <cstdint>
#include <span>
#include <string>

namespace cudalabs {

/// The tolerances a float32 GEMM result is held to.
///
/// Per element: |got - expected| <= error_factor * gamma(k + 2) * magnitude, where
/// gamma(n) = n u / (1 - n u), u = 2^-24 and magnitude = |alpha| |A||B| + |beta| |C|. That is the
/// classical worst-case bound for a dot product of length k plus the two roundings of the
/// alpha/beta update, valid for any summation order, so a correct kernel cannot break it.
///
/// Over the whole matrix: ||got - expected||_2 / ||expected||_2 <= l2_factor * u * sqrt(k + 2).
/// Rounding errors of a correct kernel add up like a random walk, about u sqrt(k/2) in practice; a
/// missing or doubled term moves the ratio by about 1/sqrt(k), far above the bound. An accumulation
/// that truncates (the tensor cores) adds bias_factor u k.
struct GemmTolerance {
  double error_factor = 1.0;  ///< multiplies gamma(k + 2); 2 when the reference is itself float32
  double l2_factor = 4.0;     ///< multiplies u sqrt(k + 2)
  double bias_factor = 0.0;   ///< multiplies u k in the L2 bound: an error of one sign per term
                              ///< (a truncating accumulation), which adds up linearly
};

/// gamma(n) = n u / (1 - n u) for float32 (u = 2^-24).
double float32_gamma(std::int64_t n);

/// An absolute floor added to every element's bound, so that exact zeros (alpha = 0 and beta = 0)
/// compare cleanly; far below any error a real bug makes.
inline constexpr double kGemmAbsoluteFloor = 1e-30;

/// The bound on the relative L2 error of a product of reduction length k.
double relative_l2_bound(int k, GemmTolerance tolerance);

/// The factor of an element's magnitude in its bound: error_factor * gamma(k + 2).
double element_gamma(int k, GemmTolerance tolerance);

/// ||error|| / ||reference|| from the two sums of squares (0 when both are 0, infinite when only
/// the reference's is).
double relative_l2_of(double error_squares, double reference_squares);

/// What the comparison found.
struct GemmComparison {
  std::int64_t checked = 0;      ///< elements compared
  std::int64_t unwritten = 0;    ///< elements still holding the poison bit pattern (never written)
  int first_unwritten_row = -1;  ///< row of the first unwritten element (-1 when none)
  int first_unwritten_col = -1;  ///< column of the first unwritten element (-1 when none)
  std::int64_t over_bound = 0;   ///< written elements whose error exceeds their bound
  std::int64_t non_finite =
      0;               ///< written elements that are NaN or infinite (e.g. C read when beta = 0)
  int worst_row = -1;  ///< row of the element with the largest error / bound ratio
  int worst_col = -1;  ///< its column
  double worst_got = 0.0;          ///< its value
  double worst_expected = 0.0;     ///< its reference value
  double worst_bound = 0.0;        ///< its bound
  double worst_ratio = 0.0;        ///< its |error| / bound (> 1 breaks the bound)
  double relative_l2 = 0.0;        ///< ||got - expected|| / ||expected|| over the written elements
  double relative_l2_bound = 0.0;  ///< the bound it is held to

  /// True when nothing was written at all: a TODO kernel.
  bool nothing_written() const { return checked > 0 && unwritten == checked; }
  /// True when every element was written and within its bounds.
  bool passed() const;
  /// One line: PASS with the errors, or what failed with the worst element, its index and bound.
  std::string describe() const;
};

/// Compares C (row-major, leading dimension `ldc`, at least matrix_span(m, n, ldc) elements) with
/// the reference values held in `reference`, for a product of reduction length `k`. An element with
/// the poison bit pattern (poison.h) counts as unwritten; any other NaN or infinity was written and
/// is wrong: a NaN computed by the GPU never has the poison's payload.
GemmComparison compare_gemm(std::span<const float> c, int ldc, const ReferenceValues& reference,
                            int k, GemmTolerance tolerance = {});

/// The same comparison when the result's values at the held elements were gathered already:
/// got[s] is C at the s-th element `reference` holds (the samples of a C that stays on the GPU).
GemmComparison compare_gemm_values(std::span<const float> got, const ReferenceValues& reference,
                                   int k, GemmTolerance tolerance = {});

}  // namespace cudalabs
