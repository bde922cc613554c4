#include "checks.h"

#include "common/compute_precision.h"
#include "common/cuda_check.h"
#include "common/poison.h"
#include "common/random_fill.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace lab13 {

namespace {

using cudalabs::CheckOutcome;
using cudalabs::DeviceBuffer;

std::string scientific(double value) {
  std::ostringstream text;
  text.precision(2);
  text << std::scientific << value;
  return text.str();
}

std::string fixed(double value) {
  std::ostringstream text;
  text.precision(2);
  text << std::fixed << value;
  return text.str();
}

// Runs `launch` and waits for the GPU; returns what went wrong, or nothing.
std::string run_and_wait(const std::function<void()>& launch) {
  try {
    launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    return {};
  } catch (const std::exception& error) {
    return error.what();
  }
}

std::uint16_t bits_of(__nv_bfloat16 value) {
  std::uint16_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::uint32_t bits_of(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

// ---- Softmax ----

SoftmaxVerifier::SoftmaxVerifier(int rows, int columns, SoftmaxInputs inputs, std::size_t offset,
                                 bool in_place, std::uint64_t seed)
    : rows_(rows), columns_(columns), inputs_(inputs), offset_(offset), in_place_(in_place) {
  input_ = softmax_inputs(rows, columns, inputs, seed);
}

std::string SoftmaxVerifier::description() const {
  return std::to_string(rows_) + " x " + std::to_string(columns_) + " " +
         softmax_inputs_name(inputs_) + " (offset " + std::to_string(offset_) +
         (in_place_ ? ", in place)" : ")");
}

CheckReport SoftmaxVerifier::check(const SoftmaxVariant& variant) {
  const std::string who = std::string(variant.name) + " on " + description() + ": ";
  const std::size_t count = input_.size();
  // The output between two guard bands; in place, the input is copied into the output's place.
  DeviceBuffer<float> output(kGuard + offset_ + count + kGuard);
  cudalabs::poison_device(output.data(), output.bytes());
  float* out = output.data() + kGuard + offset_;
  DeviceBuffer<float> separate_input(in_place_ ? 0 : offset_ + count);
  const float* in = out;
  if (in_place_) {
    CUDA_CHECK(cudaMemcpy(out, input_.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  } else {
    CUDA_CHECK(cudaMemcpy(separate_input.data() + offset_, input_.data(), count * sizeof(float),
                          cudaMemcpyHostToDevice));
    in = separate_input.data() + offset_;
  }
  CheckReport report;
  const std::string failure = run_and_wait([&] {
    variant.launch({in, out, rows_, columns_}, nullptr);
  });
  if (!failure.empty()) {
    report.message = who + failure;
    return report;
  }
  const std::vector<float> host = output.to_host();
  std::size_t guards = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    const bool inside = i >= kGuard + offset_ && i < kGuard + offset_ + count;
    if (!inside && bits_of(host[i]) != 0xFFFFFFFFu) ++guards;
  }
  return compare(host.data() + kGuard + offset_, guards, who);
}

CheckReport SoftmaxVerifier::check_in_timed_buffers(const SoftmaxVariant& variant,
                                                    const SoftmaxArgs& timed) {
  const std::string who = "timed buffers refilled: ";
  const std::size_t count = input_.size();
  if (timed.rows != rows_ || timed.columns != columns_ || timed.input == timed.output) {
    throw std::invalid_argument("check_in_timed_buffers: the timed arguments are not " +
                                description() + "'s");
  }
  CUDA_CHECK(cudaMemcpy(const_cast<float*>(timed.input), input_.data(), count * sizeof(float),
                        cudaMemcpyHostToDevice));
  cudalabs::poison_device(timed.output, count * sizeof(float));
  const std::string failure = run_and_wait([&] { variant.launch(timed, nullptr); });
  if (!failure.empty()) {
    CheckReport report;
    report.message = who + failure;
    return report;
  }
  std::vector<float> got(count);
  CUDA_CHECK(cudaMemcpy(got.data(), timed.output, count * sizeof(float), cudaMemcpyDeviceToHost));
  return compare(got.data(), 0, who);
}

CheckReport SoftmaxVerifier::compare(const float* got, std::size_t guards,
                                     const std::string& who) const {
  const std::size_t count = input_.size();
  CheckReport report;
  // Not written: still the poison, or (in place) still the input.
  std::size_t unwritten = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (bits_of(got[i]) == 0xFFFFFFFFu || (in_place_ && bits_of(got[i]) == bits_of(input_[i])))
      ++unwritten;
  }
  if (unwritten == count && guards == 0) {
    report.outcome = CheckOutcome::kNotImplemented;
    report.message = who + "never written: not implemented yet";
    return report;
  }
  // Every row against the reference in double, the rows in parallel (2^28 exponentials at the timed
  // size); the first wrong output is the one with the lowest index.
  std::size_t wrong = 0, first_bad = count;
  double worst_error = 0.0, worst_fraction = 0.0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : wrong) \
    reduction(max : worst_error, worst_fraction) reduction(min : first_bad)
  for (int r = 0; r < rows_; ++r) {
    const std::size_t base = static_cast<std::size_t>(r) * columns_;
    const std::span<const float> row(input_.data() + base, columns_);
    const std::vector<double> expected = reference_softmax_row(row);
    const double row_max = *std::max_element(row.begin(), row.end());
    for (int c = 0; c < columns_; ++c) {
      const double error = std::fabs(static_cast<double>(got[base + c]) - expected[c]);
      const double bound = softmax_error_bound(columns_, row_max - row[c], expected[c]);
      if (!(error <= bound)) {
        first_bad = std::min(first_bad, base + c);
        ++wrong;
      } else {
        worst_error = std::max(worst_error, error);
        worst_fraction = std::max(worst_fraction, error / bound);
      }
    }
  }
  report.worst_error = worst_error;
  report.worst_fraction = worst_fraction;
  std::ostringstream text;
  text << who;
  if (wrong + guards == 0) {
    report.outcome = CheckOutcome::kPassed;
    text << "worst |error| " << scientific(report.worst_error) << ", "
         << fixed(report.worst_fraction) << " of its bound: PASS";
  } else {
    text << wrong << " outputs off their bound";
    if (first_bad < count) {
      text << ", first at row " << first_bad / columns_ << " column " << first_bad % columns_
           << " (got " << got[first_bad] << ")";
    }
    if (guards != 0) text << ", " << guards << " floats written around the output";
    text << ": FAIL";
  }
  report.message = text.str();
  return report;
}

// ---- Attention ----

AttentionVerifier::AttentionVerifier(const AttentionShape& shape, std::uint64_t seed, bool sampled,
                                     bool rising_keys)
    : shape_(shape),
      scale_(default_scale(shape.head_dim)),
      sampled_(sampled),
      rising_keys_(rising_keys) {
  const std::size_t count = shape.elements();
  q_ = DeviceBuffer<__nv_bfloat16>(count);
  k_ = DeviceBuffer<__nv_bfloat16>(count);
  v_ = DeviceBuffer<__nv_bfloat16>(count);
  draw(seed);
  const long long heads = shape.heads_total();
  const int s = shape.sequence;
  if (!sampled) {
    for (long long h = 0; h < heads; ++h)
      for (int i = 0; i < s; ++i) rows_.emplace_back(h, i);
    return;
  }
  std::set<std::pair<long long, int>> chosen;
  for (const long long h : {0LL, heads / 2, heads - 1})
    for (const int i : {0, 1, 63, 64, s / 2, s - 1})
      if (i < s) chosen.emplace(h, i);
  std::vector<float> random(48);
  cudalabs::fill_uniform(random, cudalabs::derive_seed(seed, "rows"), 0.0f, 1.0f);
  for (std::size_t i = 0; i + 1 < random.size(); i += 2) {
    chosen.emplace(std::min<long long>(heads - 1, static_cast<long long>(random[i] * heads)),
                   std::min(s - 1, static_cast<int>(random[i + 1] * s)));
  }
  rows_.assign(chosen.begin(), chosen.end());
}

void AttentionVerifier::draw(std::uint64_t seed) {
  const std::size_t count = shape_.elements();
  host_q_ = bf16_inputs(count, -2.0f, 2.0f, cudalabs::derive_seed(seed, "q"), q_float_);
  host_k_ = bf16_inputs(count, -2.0f, 2.0f, cudalabs::derive_seed(seed, "k"), k_float_);
  host_v_ = bf16_inputs(count, -1.0f, 1.0f, cudalabs::derive_seed(seed, "v"), v_float_);
  if (rising_keys_) {
    const std::size_t d = static_cast<std::size_t>(shape_.head_dim);
    for (std::size_t i = 0; i < count; ++i) {
      const double key = static_cast<double>((i / d) % static_cast<std::size_t>(shape_.sequence));
      k_float_[i] = cudalabs::round_to_precision(
          static_cast<float>(k_float_[i] * (1.0 + 7.0 * key / shape_.sequence)),
          cudalabs::ComputePrecision::kBf16);
      host_k_[i] = __float2bfloat16(k_float_[i]);  // exact: the value is a BF16 already
    }
  }
  const std::size_t bytes = count * sizeof(__nv_bfloat16);
  CUDA_CHECK(cudaMemcpy(q_.data(), host_q_.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(k_.data(), host_k_.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(v_.data(), host_v_.data(), bytes, cudaMemcpyHostToDevice));
  references_.clear();  // the rows' references and any output to compare with were of old inputs
  everything_.clear();
}

CheckReport AttentionVerifier::check_in_timed_buffers(const AttentionVariant& variant,
                                                      const AttentionArgs& timed,
                                                      std::uint64_t seed) {
  const std::string who = "timed buffers refilled: ";
  if (timed.q != q_.data() || timed.k != k_.data() || timed.v != v_.data() ||
      !(timed.shape.label() == shape_.label())) {
    throw std::invalid_argument("check_in_timed_buffers: the timed arguments are not " +
                                description() + "'s");
  }
  draw(seed);
  const std::size_t count = shape_.elements();
  cudalabs::poison_device(timed.o, count * sizeof(__nv_bfloat16));
  const std::string failure = run_and_wait([&] { variant.launch(timed, nullptr); });
  if (!failure.empty()) {
    CheckReport report;
    report.message = who + failure;
    return report;
  }
  std::vector<__nv_bfloat16> got(count);
  CUDA_CHECK(
      cudaMemcpy(got.data(), timed.o, count * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  return compare(got, who, 0);
}

std::string AttentionVerifier::description() const {
  return shape_.label() + (sampled_ ? " (" : " (all ") + std::to_string(rows_.size()) + " rows)";
}

const std::vector<AttentionRowReference>& AttentionVerifier::references() {
  if (references_.empty()) {
    references_.resize(rows_.size());
#pragma omp parallel for schedule(dynamic, 8)
    for (long long i = 0; i < static_cast<long long>(rows_.size()); ++i) {
      references_[i] = reference_attention_row(shape_, scale_, q_float_, k_float_, v_float_,
                                               rows_[i].first, rows_[i].second);
    }
  }
  return references_;
}

void AttentionVerifier::compare_everything_with(std::vector<__nv_bfloat16> output,
                                                std::string name) {
  everything_ = std::move(output);
  everything_name_ = std::move(name);
}

CheckReport AttentionVerifier::check_output(const std::vector<__nv_bfloat16>& output,
                                            const std::string& who) {
  return compare(output, who + " on " + description() + ": ", 0);
}

CheckReport AttentionVerifier::compare(const std::vector<__nv_bfloat16>& output,
                                       const std::string& who, std::size_t guards) {
  CheckReport report;
  const std::size_t count = shape_.elements();
  const int d = shape_.head_dim, s = shape_.sequence;
  std::size_t unwritten = 0;
  for (const __nv_bfloat16 x : output) unwritten += bits_of(x) == 0xFFFF ? 1 : 0;
  if (unwritten == count && guards == 0) {
    report.outcome = CheckOutcome::kNotImplemented;
    report.message = who + "never written: not implemented yet";
    return report;
  }
  const std::vector<AttentionRowReference>& expected = references();
  std::size_t wrong = 0;
  std::string first_bad;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const auto [head, query] = rows_[r];
    const std::size_t base = (static_cast<std::size_t>(head) * s + query) * d;
    for (int c = 0; c < d; ++c) {
      const double got = __bfloat162float(output[base + c]);
      const double error = std::fabs(got - expected[r].output[c]);
      const double bound = attention_tolerance(expected[r], c, s);
      if (!(error <= bound)) {
        if (wrong++ == 0) {
          first_bad = "head " + std::to_string(head) + " query " + std::to_string(query) +
                      " column " + std::to_string(c) + " (got " + scientific(got) + ", expected " +
                      scientific(expected[r].output[c]) + ", bound " + scientific(bound) + ")";
        }
      } else {
        report.worst_error = std::max(report.worst_error, error);
        report.worst_fraction = std::max(report.worst_fraction, error / bound);
      }
    }
  }
  std::size_t disagree = 0;
  if (!everything_.empty()) {
    // Per head and column: the largest |V[j][c]| bounds every output of that column.
    for (long long h = 0; h < shape_.heads_total(); ++h) {
      std::vector<float> largest(d, 0.0f);
      const std::size_t head_base = static_cast<std::size_t>(h) * s * d;
      for (int j = 0; j < s; ++j)
        for (int c = 0; c < d; ++c)
          largest[c] = std::max(largest[c], std::fabs(v_float_[head_base + j * d + c]));
      for (std::size_t i = head_base; i < head_base + static_cast<std::size_t>(s) * d; ++i) {
        const double difference =
            std::fabs(__bfloat162float(output[i]) - __bfloat162float(everything_[i]));
        if (!(difference <= 1.1 * 0x1.0p-6 * largest[(i - head_base) % d])) ++disagree;
      }
    }
  }
  std::ostringstream text;
  text << who;
  if (wrong + unwritten + guards + disagree == 0) {
    report.outcome = CheckOutcome::kPassed;
    text << "worst |error| " << scientific(report.worst_error) << ", "
         << fixed(report.worst_fraction) << " of its bound";
    if (!everything_.empty())
      text << "; every element within 1.1 * 2^-6 max|V| of " << everything_name_;
    text << ": PASS";
  } else {
    if (wrong != 0) text << wrong << " outputs off their bound, first at " << first_bad << "; ";
    if (unwritten != 0) text << unwritten << " outputs never written; ";
    if (guards != 0) text << guards << " values written around the output; ";
    if (disagree != 0) text << disagree << " elements off " << everything_name_ << "; ";
    text << "FAIL";
  }
  report.message = text.str();
  return report;
}

CheckReport AttentionVerifier::check(const AttentionVariant& variant) {
  const std::string who = std::string(variant.name) + " on " + description() + ": ";
  const std::size_t count = shape_.elements();
  DeviceBuffer<__nv_bfloat16> output(kGuard + count + kGuard);
  cudalabs::poison_device(output.data(), output.bytes());
  const std::size_t workspace_bytes = variant.workspace_bytes(shape_);
  DeviceBuffer<unsigned char> workspace(workspace_bytes);
  if (workspace_bytes > 0) cudalabs::poison_device(workspace.data(), workspace_bytes);
  const std::string failure = run_and_wait([&] {
    variant.launch({shape_, q_.data(), k_.data(), v_.data(), output.data() + kGuard, scale_,
                    workspace.data(), workspace_bytes},
                   nullptr);
  });
  if (!failure.empty()) {
    CheckReport report;
    report.message = who + failure;
    return report;
  }
  const std::vector<__nv_bfloat16> host = output.to_host();
  std::size_t guards = 0;
  for (std::size_t i = 0; i < kGuard; ++i) {
    guards += bits_of(host[i]) != 0xFFFF ? 1 : 0;
    guards += bits_of(host[kGuard + count + i]) != 0xFFFF ? 1 : 0;
  }
  last_output_.assign(host.begin() + kGuard, host.begin() + kGuard + count);
  return compare(last_output_, who, guards);
}

}  // namespace lab13
