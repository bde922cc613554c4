#include "common/reference_gemm.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace cudalabs {

namespace {

void require_span(const char* name, std::size_t have, int rows, int cols, int ld) {
  const std::int64_t need = matrix_span(rows, cols, ld);
  if (static_cast<std::int64_t>(have) < need) {
    throw std::invalid_argument(std::string("reference_gemm: ") + name + " holds " +
                                std::to_string(have) + " elements, needs " + std::to_string(need));
  }
}

void validate(const HostGemmInputs& in) {
  const GemmShape& s = in.shape;
  if (s.m < 1 || s.n < 1 || s.k < 1) {
    throw std::invalid_argument("reference_gemm: shape " + s.label() + " has a size below 1");
  }
  require_span("A", in.a.size(), s.m, s.k, in.lda);
  require_span("B", in.b.size(), s.k, s.n, in.ldb);
  if (in.beta != 0.0f) require_span("C", in.c.size(), s.m, s.n, in.ldc);
}

// Block sizes: a 64 x 256 block of C accumulators (value and magnitude, 256 KiB together) and one
// row of a B panel (1 KiB) are reused 64 and 256 times while they sit in L1/L2.
constexpr int kRowBlock = 64;
constexpr int kColBlock = 256;

}  // namespace

ReferenceValues reference_gemm(const HostGemmInputs& in) {
  validate(in);
  const int m = in.shape.m, n = in.shape.n, k = in.shape.k;
  ReferenceValues out;
  out.m = m;
  out.n = n;
  out.value.assign(static_cast<std::size_t>(m) * n, 0.0);
  out.magnitude.assign(static_cast<std::size_t>(m) * n, 0.0);
  const double alpha = in.alpha, beta = in.beta;

  const int row_blocks = (m + kRowBlock - 1) / kRowBlock;
  const int col_blocks = (n + kColBlock - 1) / kColBlock;
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (int rb = 0; rb < row_blocks; ++rb) {
    for (int cb = 0; cb < col_blocks; ++cb) {
      const int i0 = rb * kRowBlock, i1 = std::min(m, i0 + kRowBlock);
      const int j0 = cb * kColBlock, j1 = std::min(n, j0 + kColBlock);
      const int width = j1 - j0;
      std::vector<double> sum(static_cast<std::size_t>(kRowBlock) * kColBlock, 0.0);
      std::vector<double> abs_sum(sum.size(), 0.0);
      for (int p = 0; p < k; ++p) {
        const float* b_row = in.b.data() + static_cast<std::size_t>(p) * in.ldb + j0;
        for (int i = i0; i < i1; ++i) {
          const double a_ip = in.a[static_cast<std::size_t>(i) * in.lda + p];
          const double abs_a_ip = std::fabs(a_ip);
          double* sum_row = sum.data() + static_cast<std::size_t>(i - i0) * kColBlock;
          double* abs_row = abs_sum.data() + static_cast<std::size_t>(i - i0) * kColBlock;
          for (int j = 0; j < width; ++j) {
            const double b_pj = b_row[j];
            sum_row[j] += a_ip * b_pj;
            abs_row[j] += abs_a_ip * std::fabs(b_pj);
          }
        }
      }
      for (int i = i0; i < i1; ++i) {
        for (int j = j0; j < j1; ++j) {
          const std::size_t local = static_cast<std::size_t>(i - i0) * kColBlock + (j - j0);
          const std::size_t global = static_cast<std::size_t>(i) * n + j;
          double value = alpha * sum[local];
          double magnitude = std::fabs(alpha) * abs_sum[local];
          if (in.beta != 0.0f) {
            const double c_ij = in.c[static_cast<std::size_t>(i) * in.ldc + j];
            value += beta * c_ij;
            magnitude += std::fabs(beta) * std::fabs(c_ij);
          }
          out.value[global] = value;
          out.magnitude[global] = magnitude;
        }
      }
    }
  }
  return out;
}

ReferenceValues reference_gemm_at(const HostGemmInputs& in, std::vector<std::int64_t> positions) {
  validate(in);
  const int m = in.shape.m, n = in.shape.n, k = in.shape.k;
  for (const std::int64_t pos : positions) {
    if (pos < 0 || pos >= static_cast<std::int64_t>(m) * n) {
      throw std::invalid_argument("reference_gemm_at: position " + std::to_string(pos) +
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
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t s = 0; s < out.positions.size(); ++s) {
    const int i = static_cast<int>(out.positions[s] / n);
    const int j = static_cast<int>(out.positions[s] % n);
    double sum = 0.0, abs_sum = 0.0;
    for (int p = 0; p < k; ++p) {
      const double term = static_cast<double>(in.a[static_cast<std::size_t>(i) * in.lda + p]) *
                          in.b[static_cast<std::size_t>(p) * in.ldb + j];
      sum += term;
      abs_sum += std::fabs(term);
    }
    double value = static_cast<double>(in.alpha) * sum;
    double magnitude = std::fabs(static_cast<double>(in.alpha)) * abs_sum;
    if (in.beta != 0.0f) {
      const double c_ij = in.c[static_cast<std::size_t>(i) * in.ldc + j];
      value += static_cast<double>(in.beta) * c_ij;
      magnitude += std::fabs(static_cast<double>(in.beta)) * std::fabs(c_ij);
    }
    out.value[s] = value;
    out.magnitude[s] = magnitude;
  }
  return out;
}

ReferenceValues add_scaled_c(ReferenceValues product, float beta, std::span<const float> c,
                             int ldc) {
  if (beta == 0.0f) return product;
  require_span("C", c.size(), product.m, product.n, ldc);
  const double scale = beta;
  for (std::size_t s = 0; s < product.size(); ++s) {
    const double c_ij = c[static_cast<std::size_t>(product.row_of(s)) * ldc + product.col_of(s)];
    product.value[s] += scale * c_ij;
    product.magnitude[s] += std::fabs(scale) * std::fabs(c_ij);
  }
  return product;
}

std::vector<std::int64_t> sample_positions(int m, int n, int random_count, std::uint64_t seed) {
  if (m < 1 || n < 1) {
    throw std::invalid_argument("sample_positions: matrix " + std::to_string(m) + " x " +
                                std::to_string(n) + " is empty");
  }
  std::vector<std::int64_t> positions;
  auto add = [&](std::int64_t row, std::int64_t col) { positions.push_back(row * n + col); };
  // The four corners and the middle of each edge: partial tiles sit in the last rows and columns.
  const int rows[] = {0, m / 2, m - 1};
  const int cols[] = {0, n / 2, n - 1};
  for (const int r : rows)
    for (const int c : cols) add(r, c);
  // The whole last row and last column, capped so that wide matrices stay cheap.
  for (int c = 0; c < n; c += std::max(1, n / 256)) add(m - 1, c);
  for (int r = 0; r < m; r += std::max(1, m / 256)) add(r, n - 1);
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<std::int64_t> row_dist(0, m - 1), col_dist(0, n - 1);
  for (int s = 0; s < random_count; ++s) add(row_dist(generator), col_dist(generator));
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

}  // namespace cudalabs
