#include "checks.h"

#include "common/cuda_check.h"
#include "common/poison.h"
#include "common/random_fill.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <sstream>
#include <utility>

namespace lab12 {

namespace {

using cudalabs::CheckOutcome;
using cudalabs::DeviceBuffer;

constexpr std::uint32_t kPoisonBits = 0xFFFFFFFFu;

std::uint32_t bits_of(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// A sum that is still the poison or the launchers' start value was never written.
bool never_written(float value) {
  return bits_of(value) == kPoisonBits || bits_of(value) == bits_of(kSumStart);
}

std::string scientific(double value) {
  std::ostringstream text;
  text.precision(3);
  text << std::scientific << value;
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

// Scratch for a variant, poisoned: a kernel that relies on memory it did not clear fails.
DeviceBuffer<unsigned char> poisoned_workspace(std::size_t bytes) {
  DeviceBuffer<unsigned char> workspace(bytes);
  if (bytes > 0) cudalabs::poison_device(workspace.data(), bytes);
  return workspace;
}

template <class T>
DeviceBuffer<T> upload_at(const std::vector<T>& values, std::size_t offset) {
  DeviceBuffer<T> buffer(values.size() + offset);
  cudalabs::poison_device(buffer.data(), buffer.bytes());
  CUDA_CHECK(cudaMemcpy(buffer.data() + offset, values.data(), values.size() * sizeof(T),
                        cudaMemcpyHostToDevice));
  return buffer;
}

template <class T>
std::size_t guard_changes(const std::vector<T>& host, std::size_t first, std::size_t count) {
  std::size_t changed = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (i >= first && i < first + count) continue;
    std::uint32_t bits = 0;
    std::memcpy(&bits, &host[i], sizeof bits);
    if (bits != kPoisonBits) ++changed;
  }
  return changed;
}

}  // namespace

// ---- Sum ----

SumVerifier::SumVerifier(std::size_t count, std::size_t offset, std::uint64_t seed)
    : count_(count), offset_(offset) {
  const std::vector<float> exact = exact_sum_inputs(count, cudalabs::derive_seed(seed, "exact"));
  std::vector<float> random(count);
  cudalabs::fill_uniform(random, cudalabs::derive_seed(seed, "random"));
  exact_sum_ = reference_sum(exact);
  random_sum_ = reference_sum(random);
  magnitudes_ = sum_of_magnitudes(random);
  exact_input_ = upload_at(exact, offset);
  random_input_ = upload_at(random, offset);
}

std::string SumVerifier::description() const {
  return std::to_string(count_) + " floats at offset " + std::to_string(offset_) +
         (offset_ % 4 != 0 ? " (not 16-byte aligned)" : "");
}

CheckReport SumVerifier::check(const SumVariant& variant) {
  const std::string who = std::string(variant.name) + " on " + description() + ": ";
  DeviceBuffer<float> output(2 * kGuard + 1);
  float* sum = output.data() + kGuard;
  const std::size_t workspace_bytes = variant.workspace_bytes(count_);
  std::size_t guards = 0;
  // One launch on `input`; its result, or the error that stopped it.
  auto run = [&](const DeviceBuffer<float>& input, float& result) {
    cudalabs::poison_device(output.data(), output.bytes());
    DeviceBuffer<unsigned char> workspace = poisoned_workspace(workspace_bytes);
    const std::string failure = run_and_wait([&] {
      variant.launch({input.data() + offset_, count_, sum, workspace.data(), workspace_bytes},
                     nullptr);
    });
    if (!failure.empty()) return failure;
    const std::vector<float> host = output.to_host();
    result = host[kGuard];
    guards += guard_changes(host, kGuard, 1);
    return std::string();
  };

  CheckReport report;
  float exact = 0.0f, random = 0.0f;
  const std::pair<const DeviceBuffer<float>*, float*> runs[] = {{&exact_input_, &exact},
                                                                {&random_input_, &random}};
  for (const auto& [input, result] : runs) {
    if (const std::string failure = run(*input, *result); !failure.empty()) {
      report.message = who + failure;
      return report;
    }
  }
  if (never_written(exact) && never_written(random) && guards == 0) {
    report.outcome = CheckOutcome::kNotImplemented;
    report.message = who + "never written: not implemented yet";
    return report;
  }
  const std::int64_t depth = variant.addition_depth(count_);
  report.error = std::fabs(static_cast<double>(random) - random_sum_);
  report.bound = sum_error_bound(depth, magnitudes_);
  std::ostringstream text;
  text << who;
  bool passed = true;
  if (never_written(exact) || static_cast<double>(exact) != exact_sum_) {
    text << "exact input: got " << exact << ", expected " << exact_sum_
         << (never_written(exact) ? " (never written)" : "") << ": FAIL; ";
    passed = false;
  } else {
    text << "exact input: " << exact_sum_ << " bit for bit; ";
  }
  // Past depth * u ~ 1 the bound allows any value (gamma_depth >= 1): a check that could not fail.
  // There the exact input decides, and the random one must only be written and finite.
  const bool bounded = std::isfinite(report.bound) && report.bound < magnitudes_;
  const bool within =
      !never_written(random) && std::isfinite(random) && (!bounded || report.error <= report.bound);
  if (bounded) {
    text << "random input: |error| " << scientific(report.error) << " <= bound "
         << scientific(report.bound) << " (" << depth << " additions deep, u = 2^-24)";
  } else {
    text << "random input: written and finite (" << depth
         << " additions deep: no error bound below the sum of magnitudes, the exact input decides)";
  }
  text << (within ? "" : ": FAIL");
  passed = passed && within;
  if (variant.deterministic && passed) {
    float again = 0.0f;
    if (const std::string failure = run(random_input_, again); !failure.empty()) {
      report.message = who + failure;
      return report;
    }
    const bool same = bits_of(again) == bits_of(random);
    text << (same ? "; the same bits on a second run" : "; a second run gave other bits: FAIL");
    passed = passed && same;
  }
  if (guards != 0) {
    text << "; " << guards << " floats written around the output: FAIL";
    passed = false;
  }
  report.outcome = passed ? CheckOutcome::kPassed : CheckOutcome::kFailed;
  report.message = text.str() + (passed ? ": PASS" : "");
  return report;
}

// ---- Scan ----

ScanVerifier::ScanVerifier(std::size_t count, std::size_t input_offset, std::size_t output_offset,
                           std::uint64_t seed)
    : count_(count), input_offset_(input_offset), output_offset_(output_offset) {
  const std::vector<std::uint32_t> input = scan_inputs(count, cudalabs::derive_seed(seed, "scan"));
  expected_ = reference_inclusive_scan(input);
  input_ = upload_at(input, input_offset);
}

std::string ScanVerifier::description() const {
  return std::to_string(count_) + " values (input offset " + std::to_string(input_offset_) +
         ", output offset " + std::to_string(output_offset_) + ")";
}

CheckReport ScanVerifier::check(const ScanVariant& variant) {
  const std::string who = std::string(variant.name) + " on " + description() + ": ";
  const std::size_t first = kGuard + output_offset_;
  DeviceBuffer<std::uint32_t> output(first + count_ + kGuard);
  cudalabs::poison_device(output.data(), output.bytes());
  const std::size_t workspace_bytes = variant.workspace_bytes(count_);
  DeviceBuffer<unsigned char> workspace = poisoned_workspace(workspace_bytes);
  CheckReport report;
  const std::string failure = run_and_wait([&] {
    variant.launch({input_.data() + input_offset_, output.data() + first, count_, workspace.data(),
                    workspace_bytes},
                   nullptr);
  });
  if (!failure.empty()) {
    report.message = who + failure;
    return report;
  }
  const std::vector<std::uint32_t> host = output.to_host();
  std::size_t unwritten = 0, wrong = 0, first_bad = count_;
  for (std::size_t i = 0; i < count_; ++i) {
    const std::uint32_t got = host[first + i];
    if (got == expected_[i]) continue;
    (got == kPoisonBits ? unwritten : wrong) += 1;
    if (first_bad == count_) first_bad = i;
  }
  const std::size_t guards = guard_changes(host, first, count_);
  std::ostringstream text;
  text << who;
  if (unwritten == count_ && guards == 0) {
    report.outcome = CheckOutcome::kNotImplemented;
    report.message = who + "never written: not implemented yet";
    return report;
  }
  if (unwritten + wrong + guards == 0) {
    report.outcome = CheckOutcome::kPassed;
    report.message = who + "every value bit for bit: PASS";
    return report;
  }
  text << unwritten << " unwritten and " << wrong << " wrong values";
  if (first_bad < count_) {
    text << ", first at " << first_bad << " (got " << host[first + first_bad] << ", expected "
         << expected_[first_bad] << ")";
  }
  if (guards != 0) text << ", " << guards << " values written around the output";
  report.message = text.str() + ": FAIL";
  return report;
}

// ---- Histogram ----

HistogramVerifier::HistogramVerifier(std::size_t count, std::size_t offset,
                                     ByteDistribution distribution, std::uint64_t seed)
    : count_(count), offset_(offset), distribution_(distribution) {
  const std::vector<std::uint8_t> input = histogram_inputs(
      count, distribution, cudalabs::derive_seed(seed, distribution_name(distribution)));
  expected_ = reference_histogram(input);
  input_ = upload_at(input, offset);
}

std::string HistogramVerifier::description() const {
  return std::to_string(count_) + " " + distribution_name(distribution_) + " bytes at offset " +
         std::to_string(offset_);
}

CheckReport HistogramVerifier::check(const HistogramVariant& variant) {
  const std::string who = std::string(variant.name) + " on " + description() + ": ";
  DeviceBuffer<std::uint32_t> output(kGuard + kBins + kGuard);
  cudalabs::poison_device(output.data(), output.bytes());
  CheckReport report;
  const std::string failure = run_and_wait([&] {
    variant.launch({input_.data() + offset_, count_, output.data() + kGuard}, nullptr);
  });
  if (!failure.empty()) {
    report.message = who + failure;
    return report;
  }
  const std::vector<std::uint32_t> host = output.to_host();
  std::size_t wrong = 0, zero = 0;
  int first_bad = -1;
  for (int b = 0; b < kBins; ++b) {
    const std::uint32_t got = host[kGuard + b];
    zero += got == 0 ? 1 : 0;
    if (got != expected_[b]) {
      ++wrong;
      if (first_bad < 0) first_bad = b;
    }
  }
  const std::size_t guards = guard_changes(host, kGuard, kBins);
  // The launcher clears the bins: all of them still 0 after counting >= 1 byte is a kernel that
  // counted nothing.
  if (zero == static_cast<std::size_t>(kBins) && guards == 0) {
    report.outcome = CheckOutcome::kNotImplemented;
    report.message = who + "every bin still 0: not implemented yet";
    return report;
  }
  if (wrong + guards == 0) {
    report.outcome = CheckOutcome::kPassed;
    report.message = who + "every bin exact: PASS";
    return report;
  }
  std::ostringstream text;
  text << who << wrong << " wrong bins";
  if (first_bad >= 0) {
    text << ", first " << first_bad << " (got " << host[kGuard + first_bad] << ", expected "
         << expected_[first_bad] << ")";
  }
  if (guards != 0) text << ", " << guards << " counters written around the bins";
  report.message = text.str() + ": FAIL";
  return report;
}

// ---- In the timed buffers ----

namespace {

// The timed input refilled with `values` (the driver owns it; the variant only reads it).
template <class T>
void refill(const T* timed_input, const std::vector<T>& values) {
  CUDA_CHECK(cudaMemcpy(const_cast<T*>(timed_input), values.data(), values.size() * sizeof(T),
                        cudaMemcpyHostToDevice));
}

template <class T>
std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

CheckReport check_sum_in_timed_buffers(const SumVariant& variant, const SumArgs& timed,
                                       std::uint64_t seed) {
  const std::string who = "timed buffers refilled with an exact input: ";
  const std::vector<float> exact = exact_sum_inputs(timed.count, seed);
  const double expected = reference_sum(exact);
  refill(timed.input, exact);
  cudalabs::poison_device(timed.sum, sizeof(float));
  CheckReport report;
  if (const std::string failure = run_and_wait([&] { variant.launch(timed, nullptr); });
      !failure.empty()) {
    report.message = who + failure;
    return report;
  }
  const float got = download(timed.sum, 1)[0];
  const bool right = !never_written(got) && static_cast<double>(got) == expected;
  std::ostringstream text;
  text << who;
  if (right) {
    text << expected << " bit for bit: PASS";
  } else {
    text << "got " << got << ", expected " << expected
         << (never_written(got) ? " (never written)" : "") << ": FAIL";
  }
  report.outcome = right ? CheckOutcome::kPassed : CheckOutcome::kFailed;
  report.message = text.str();
  return report;
}

CheckReport check_scan_in_timed_buffers(const ScanVariant& variant, const ScanArgs& timed,
                                        std::uint64_t seed) {
  const std::string who = "timed buffers refilled: ";
  const std::vector<std::uint32_t> input = scan_inputs(timed.count, seed);
  const std::vector<std::uint32_t> expected = reference_inclusive_scan(input);
  refill(timed.input, input);
  cudalabs::poison_device(timed.output, timed.count * sizeof(std::uint32_t));
  CheckReport report;
  if (const std::string failure = run_and_wait([&] { variant.launch(timed, nullptr); });
      !failure.empty()) {
    report.message = who + failure;
    return report;
  }
  const std::vector<std::uint32_t> got = download(timed.output, timed.count);
  std::size_t wrong = 0, first_bad = timed.count;
  for (std::size_t i = 0; i < timed.count; ++i) {
    if (got[i] == expected[i]) continue;
    if (wrong++ == 0) first_bad = i;
  }
  std::ostringstream text;
  text << who;
  if (wrong == 0) {
    text << "every value bit for bit: PASS";
  } else {
    text << wrong << " wrong or unwritten values, first at " << first_bad << " (got "
         << got[first_bad] << ", expected " << expected[first_bad] << "): FAIL";
  }
  report.outcome = wrong == 0 ? CheckOutcome::kPassed : CheckOutcome::kFailed;
  report.message = text.str();
  return report;
}

CheckReport check_histogram_in_timed_buffers(const HistogramVariant& variant,
                                             const HistogramArgs& timed,
                                             ByteDistribution distribution, std::uint64_t seed) {
  const std::string who =
      std::string("timed buffers refilled with ") + distribution_name(distribution) + " bytes: ";
  const std::vector<std::uint8_t> input = histogram_inputs(timed.count, distribution, seed);
  const std::array<std::uint32_t, kBins> expected = reference_histogram(input);
  refill(timed.input, input);
  cudalabs::poison_device(timed.bins, kBins * sizeof(std::uint32_t));
  CheckReport report;
  if (const std::string failure = run_and_wait([&] { variant.launch(timed, nullptr); });
      !failure.empty()) {
    report.message = who + failure;
    return report;
  }
  const std::vector<std::uint32_t> got = download(timed.bins, kBins);
  int wrong = 0, first_bad = -1;
  for (int b = 0; b < kBins; ++b) {
    if (got[b] == expected[b]) continue;
    if (wrong++ == 0) first_bad = b;
  }
  std::ostringstream text;
  text << who;
  if (wrong == 0) {
    text << "every bin exact: PASS";
  } else {
    text << wrong << " wrong bins, first " << first_bad << " (got " << got[first_bad]
         << ", expected " << expected[first_bad] << "): FAIL";
  }
  report.outcome = wrong == 0 ? CheckOutcome::kPassed : CheckOutcome::kFailed;
  report.message = text.str();
  return report;
}

}  // namespace lab12
