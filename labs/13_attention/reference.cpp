#include "reference.h"

#include "common/compute_precision.h"
#include "common/random_fill.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace lab13 {

double AttentionShape::flops() const {
  const double s = sequence;
  const double pairs = causal ? s * (s + 1) / 2 : s * s;
  return 4.0 * static_cast<double>(heads_total()) * head_dim * pairs;
}

std::string AttentionShape::label() const {
  std::ostringstream text;
  text << 'b' << batch << 'h' << heads << 's' << sequence << 'd' << head_dim
       << (causal ? "_causal" : "");
  return text.str();
}

float default_scale(int head_dim) {
  return 1.0f / std::sqrt(static_cast<float>(head_dim));
}

double softmax_relative_bound(int columns, double distance) {
  return (2.0 * distance + columns + 8.0) * kUnitRoundoff + 0x1.0p-21;
}

double softmax_error_bound(int columns, double distance, double exact) {
  // An exact 0 is a masked input (exp(-infinity)): its distance is infinite, and infinity * 0
  // would be NaN, a bound no output meets.
  const double relative = exact == 0.0 ? 0.0 : softmax_relative_bound(columns, distance) * exact;
  return relative + 0x1.0p-120;
}

std::vector<double> reference_softmax_row(std::span<const float> row) {
  double m = -std::numeric_limits<double>::infinity();
  for (const float x : row) m = std::max(m, static_cast<double>(x));
  std::vector<double> out(row.size());
  double sum = 0.0;
  for (std::size_t c = 0; c < row.size(); ++c) {
    out[c] = std::isinf(row[c]) && row[c] < 0 ? 0.0 : std::exp(static_cast<double>(row[c]) - m);
    sum += out[c];
  }
  for (double& y : out) y /= sum;
  return out;
}

const char* softmax_inputs_name(SoftmaxInputs inputs) {
  switch (inputs) {
    case SoftmaxInputs::kUniform:
      return "uniform";
    case SoftmaxInputs::kLarge:
      return "large";
    case SoftmaxInputs::kMasked:
      return "masked";
  }
  return "?";
}

std::vector<float> softmax_inputs(int rows, int columns, SoftmaxInputs inputs, std::uint64_t seed) {
  std::vector<float> values(static_cast<std::size_t>(rows) * columns);
  const float range = inputs == SoftmaxInputs::kLarge ? 100.0f : 10.0f;
  cudalabs::fill_uniform(values, seed, -range, range);
  if (inputs == SoftmaxInputs::kMasked) {
    std::vector<float> coin(values.size());
    cudalabs::fill_uniform(coin, cudalabs::derive_seed(seed, "mask"), 0.0f, 1.0f);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const bool keep =
          i % columns == static_cast<std::size_t>((i / columns) % columns);  // one a row
      if (!keep && coin[i] < 1.0f / 3.0f) values[i] = -std::numeric_limits<float>::infinity();
    }
  }
  return values;
}

std::vector<__nv_bfloat16> bf16_inputs(std::size_t count, float lo, float hi, std::uint64_t seed,
                                       std::vector<float>& as_float) {
  as_float.resize(count);
  cudalabs::fill_uniform(as_float, seed, lo, hi);
  std::vector<__nv_bfloat16> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    as_float[i] = cudalabs::round_to_precision(as_float[i], cudalabs::ComputePrecision::kBf16);
    values[i] = __float2bfloat16(as_float[i]);  // exact: the value is a BF16 already
  }
  return values;
}

AttentionRowReference reference_attention_row(const AttentionShape& shape, float scale,
                                              std::span<const float> q, std::span<const float> k,
                                              std::span<const float> v, long long head, int query) {
  const int d = shape.head_dim, s = shape.sequence;
  const std::size_t base = static_cast<std::size_t>(head) * s * d;
  const float* qi = q.data() + base + static_cast<std::size_t>(query) * d;
  const int keys = shape.causal ? query + 1 : s;
  std::vector<double> score(keys);
  double largest_magnitude = 0.0, m = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < keys; ++j) {
    const float* kj = k.data() + base + static_cast<std::size_t>(j) * d;
    double dot = 0.0, magnitude = 0.0;
    for (int c = 0; c < d; ++c) {
      dot += static_cast<double>(qi[c]) * kj[c];
      magnitude += std::fabs(static_cast<double>(qi[c]) * kj[c]);
    }
    score[j] = scale * dot;
    largest_magnitude = std::max(largest_magnitude, magnitude);
    m = std::max(m, score[j]);
  }
  double sum = 0.0;
  for (double& x : score) sum += x = std::exp(x - m);
  AttentionRowReference r;
  r.output.assign(d, 0.0);
  r.magnitude.assign(d, 0.0);
  for (int j = 0; j < keys; ++j) {
    const double p = score[j] / sum;
    const float* vj = v.data() + base + static_cast<std::size_t>(j) * d;
    for (int c = 0; c < d; ++c) {
      r.output[c] += p * vj[c];
      r.magnitude[c] += p * std::fabs(static_cast<double>(vj[c]));
    }
  }
  // A dot product of head_dim exact products summed in FP32 by the tensor cores: twice the
  // classical bound and one truncation per 16-term step (common/gemm_check.h's tensor-core bound).
  r.score_error = scale * (2.0 * (d + 2) + d / 8.0) * kUnitRoundoff * largest_magnitude;
  return r;
}

double attention_tolerance(const AttentionRowReference& reference, int column, int sequence) {
  return 0x1.0p-8 * std::fabs(reference.output[column]) +
         (0x1.0p-8 + 4.0 * reference.score_error + (sequence + 16.0) * kUnitRoundoff + 0x1.0p-20) *
             reference.magnitude[column];
}

}  // namespace lab13
