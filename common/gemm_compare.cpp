#include "common/gemm_compare.h"

#include "common/poison.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace cudalabs {

namespace {
constexpr double kUnitRoundoff = 0x1.0p-24;
}  // namespace

double float32_gamma(std::int64_t n) {
  const double nu = static_cast<double>(n) * kUnitRoundoff;
  if (nu >= 1.0) return std::numeric_limits<double>::infinity();
  return nu / (1.0 - nu);
}

bool GemmComparison::passed() const {
  return checked > 0 && unwritten == 0 && over_bound == 0 && relative_l2 <= relative_l2_bound;
}

std::string GemmComparison::describe() const {
  std::ostringstream text;
  text.precision(3);
  if (checked == 0) return "nothing compared";
  if (nothing_written()) return "never written: not implemented yet";
  if (unwritten > 0) {
    text << unwritten << " of " << checked << " elements never written, first at ("
         << first_unwritten_row << ", " << first_unwritten_col << ")";
    return text.str();
  }
  const char* verdict = passed() ? "PASS" : "FAIL";
  text << verdict << ": rel L2 " << std::scientific << relative_l2 << " (bound "
       << relative_l2_bound << ")";
  text << ", worst (" << worst_row << ", " << worst_col << ") got " << worst_got << " expected "
       << worst_expected << " |err| " << std::fabs(worst_got - worst_expected) << " bound "
       << worst_bound;
  if (over_bound > 0) text << ", " << over_bound << " elements over their bound";
  if (non_finite > 0) text << ", " << non_finite << " NaN or infinite";
  return text.str();
}

namespace {

// The comparison of every element `reference` holds with got(s), the result's value at the s-th
// element held (NaN-poisoned when never written).
template <class Got>
GemmComparison compare_held(const ReferenceValues& reference, int k, GemmTolerance tolerance,
                            Got got_of) {
  if (k < 1)
    throw std::invalid_argument("compare_gemm: k = " + std::to_string(k) + " must be >= 1");
  GemmComparison result;
  result.relative_l2_bound = relative_l2_bound(k, tolerance);
  const double gamma = element_gamma(k, tolerance);
  double error_squares = 0.0, reference_squares = 0.0;
  for (std::size_t s = 0; s < reference.size(); ++s) {
    const int row = reference.row_of(s);
    const int col = reference.col_of(s);
    const float stored = got_of(s);
    const double got = stored;
    const double expected = reference.value[s];
    ++result.checked;
    if (is_poison(stored)) {
      if (result.unwritten++ == 0) {
        result.first_unwritten_row = row;
        result.first_unwritten_col = col;
      }
      continue;
    }
    const double error = std::fabs(got - expected);
    const double bound = gamma * reference.magnitude[s] + kGemmAbsoluteFloor;
    // NaN or infinity in a written element counts as an infinite error.
    const double ratio =
        std::isfinite(got) ? error / bound : std::numeric_limits<double>::infinity();
    if (ratio > 1.0) ++result.over_bound;
    if (!std::isfinite(got)) ++result.non_finite;
    if (ratio > result.worst_ratio || result.worst_row < 0) {
      result.worst_ratio = ratio;
      result.worst_row = row;
      result.worst_col = col;
      result.worst_got = got;
      result.worst_expected = expected;
      result.worst_bound = bound;
    }
    error_squares += std::isfinite(got) ? error * error : std::numeric_limits<double>::infinity();
    reference_squares += expected * expected;
  }
  result.relative_l2 = relative_l2_of(error_squares, reference_squares);
  return result;
}

}  // namespace

double relative_l2_bound(int k, GemmTolerance tolerance) {
  return tolerance.l2_factor * kUnitRoundoff * std::sqrt(static_cast<double>(k) + 2.0) +
         tolerance.bias_factor * kUnitRoundoff * static_cast<double>(k);
}

double element_gamma(int k, GemmTolerance tolerance) {
  return tolerance.error_factor * float32_gamma(static_cast<std::int64_t>(k) + 2);
}

double relative_l2_of(double error_squares, double reference_squares) {
  if (reference_squares > 0.0) return std::sqrt(error_squares / reference_squares);
  return error_squares == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
}

GemmComparison compare_gemm(std::span<const float> c, int ldc, const ReferenceValues& reference,
                            int k, GemmTolerance tolerance) {
  if (reference.m < 1 || reference.n < 1)
    throw std::invalid_argument("compare_gemm: empty reference");
  const std::int64_t need = matrix_span(reference.m, reference.n, ldc);
  if (static_cast<std::int64_t>(c.size()) < need) {
    throw std::invalid_argument("compare_gemm: C holds " + std::to_string(c.size()) +
                                " elements, needs " + std::to_string(need));
  }
  return compare_held(reference, k, tolerance, [&](std::size_t s) {
    return c[static_cast<std::size_t>(reference.row_of(s)) * ldc + reference.col_of(s)];
  });
}

GemmComparison compare_gemm_values(std::span<const float> got, const ReferenceValues& reference,
                                   int k, GemmTolerance tolerance) {
  if (reference.m < 1 || reference.n < 1)
    throw std::invalid_argument("compare_gemm_values: empty reference");
  if (got.size() != reference.size()) {
    throw std::invalid_argument("compare_gemm_values: " + std::to_string(got.size()) +
                                " values for " + std::to_string(reference.size()) +
                                " reference elements");
  }
  return compare_held(reference, k, tolerance, [&](std::size_t s) { return got[s]; });
}

}  // namespace cudalabs
