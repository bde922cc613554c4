#include "common/drawn_reference.h"

#include "common/random_fill.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace cudalabs {

float DrawnMatrix::at(int row, int col) const {
  const float value = uniform_at(
      seed, static_cast<std::uint64_t>(first + static_cast<std::int64_t>(row) * ld + col));
  return rounding ? rounding(value) : value;
}

ReferenceValues drawn_gemm_reference(const GemmShape& shape, float alpha, const DrawnMatrix& a,
                                     const DrawnMatrix& b, float beta, const DrawnMatrix& c,
                                     std::vector<std::int64_t> positions) {
  const int m = shape.m, n = shape.n, k = shape.k;
  for (const std::int64_t position : positions) {
    if (position < 0 || position >= static_cast<std::int64_t>(m) * n) {
      throw std::invalid_argument("drawn_gemm_reference: position " + std::to_string(position) +
                                  " is outside the " + std::to_string(m) + " x " +
                                  std::to_string(n) + " matrix C");
    }
  }
  ReferenceValues out;
  out.m = m;
  out.n = n;
  out.positions = std::move(positions);
  out.value.assign(out.positions.size(), 0.0);
  out.magnitude.assign(out.positions.size(), 0.0);
  const std::int64_t count = static_cast<std::int64_t>(out.positions.size());
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t s = 0; s < count; ++s) {
    const int i = static_cast<int>(out.positions[s] / n);
    const int j = static_cast<int>(out.positions[s] % n);
    double sum = 0.0, abs_sum = 0.0;
    for (int p = 0; p < k; ++p) {
      const double term = static_cast<double>(a.at(i, p)) * b.at(p, j);
      sum += term;
      abs_sum += std::fabs(term);
    }
    double value = static_cast<double>(alpha) * sum;
    double magnitude = std::fabs(static_cast<double>(alpha)) * abs_sum;
    if (beta != 0.0f) {
      const double c_ij = c.at(i, j);
      value += static_cast<double>(beta) * c_ij;
      magnitude += std::fabs(static_cast<double>(beta)) * std::fabs(c_ij);
    }
    out.value[s] = value;
    out.magnitude[s] = magnitude;
  }
  return out;
}

}  // namespace cudalabs
