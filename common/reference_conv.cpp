#include "common/reference_conv.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace cudalabs {
namespace {

void require_sizes(const ConvShape& shape, std::span<const float> input,
                   std::span<const float> filter) {
  validate_conv_shape(shape, "reference_conv2d");
  if (static_cast<std::int64_t>(input.size()) < shape.input_elements()) {
    throw std::invalid_argument("reference_conv2d: input holds " + std::to_string(input.size()) +
                                " floats, " + shape.label() + " needs " +
                                std::to_string(shape.input_elements()));
  }
  if (static_cast<std::int64_t>(filter.size()) < shape.filter_elements()) {
    throw std::invalid_argument("reference_conv2d: filter holds " + std::to_string(filter.size()) +
                                " floats, " + shape.label() + " needs " +
                                std::to_string(shape.filter_elements()));
  }
}

// One output element: its value and magnitude, by a straight loop over c, r, s in double.
void one_output(const ConvShape& shape, const float* input, const float* filter, std::int64_t row,
                int q, double& value, double& magnitude) {
  const int p = static_cast<int>(row % shape.p());
  const int f = static_cast<int>((row / shape.p()) % shape.f);
  const std::int64_t n = row / (std::int64_t{shape.p()} * shape.f);
  double sum = 0.0, abs_sum = 0.0;
  for (int c = 0; c < shape.c; ++c) {
    const float* image = input + ((n * shape.c + c) * shape.h + p) * shape.w + q;
    const float* weights =
        filter + (static_cast<std::int64_t>(f) * shape.c + c) * shape.r * shape.s;
    for (int r = 0; r < shape.r; ++r) {
      for (int s = 0; s < shape.s; ++s) {
        const double term = static_cast<double>(image[r * shape.w + s]) * weights[r * shape.s + s];
        sum += term;
        abs_sum += std::fabs(term);
      }
    }
  }
  value = sum;
  magnitude = abs_sum;
}

}  // namespace

ReferenceValues reference_conv2d(const ConvShape& shape, std::span<const float> input,
                                 std::span<const float> filter) {
  require_sizes(shape, input, filter);
  ReferenceValues ref;
  const std::int64_t rows = std::int64_t{shape.n} * shape.f * shape.p();
  ref.m = static_cast<int>(rows);
  ref.n = shape.q();
  ref.value.resize(static_cast<std::size_t>(rows) * shape.q());
  ref.magnitude.resize(ref.value.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    for (int q = 0; q < shape.q(); ++q) {
      const std::size_t at = static_cast<std::size_t>(row) * shape.q() + q;
      one_output(shape, input.data(), filter.data(), row, q, ref.value[at], ref.magnitude[at]);
    }
  }
  return ref;
}

ReferenceValues reference_conv2d_at(const ConvShape& shape, std::span<const float> input,
                                    std::span<const float> filter,
                                    std::vector<std::int64_t> positions) {
  require_sizes(shape, input, filter);
  ReferenceValues ref;
  ref.m = static_cast<int>(std::int64_t{shape.n} * shape.f * shape.p());
  ref.n = shape.q();
  ref.value.resize(positions.size());
  ref.magnitude.resize(positions.size());
  for (std::int64_t position : positions) {
    if (position < 0 || position >= std::int64_t{ref.m} * ref.n) {
      throw std::invalid_argument("reference_conv2d_at: position " + std::to_string(position) +
                                  " is outside " + shape.label());
    }
  }
  ref.positions = std::move(positions);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < ref.positions.size(); ++i) {
    one_output(shape, input.data(), filter.data(), ref.positions[i] / ref.n,
               static_cast<int>(ref.positions[i] % ref.n), ref.value[i], ref.magnitude[i]);
  }
  return ref;
}

}  // namespace cudalabs
