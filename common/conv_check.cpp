#include "common/conv_check.h"

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_conv.h"

#include <exception>
#include <optional>
#include <stdexcept>
#include <vector>

namespace cudalabs {
namespace {

// Floats of poison behind the output: a kernel that writes past the last element changes them.
constexpr std::size_t kGuardFloats = 256;

}  // namespace

struct ConvVerifier::State {
  ConvShape shape;
  std::uint64_t seed = 0;
  std::vector<float> input, filter;
  DeviceBuffer<float> device_input, device_filter, device_output;
  std::optional<ReferenceValues> reference;
  std::string description;

  bool full_reference() const {
    return shape.output_elements() * shape.reduction_length() <= kFullReferenceLimit;
  }
  int rows() const { return static_cast<int>(shape.output_elements() / shape.q()); }

  std::vector<std::int64_t> samples() const {
    return sample_positions(rows(), shape.q(), 4096, derive_seed(seed, "samples"));
  }

  // Poisons the `output_floats` floats at args.output (the output, and any guard band behind it),
  // launches, and compares the output with the reference. Never throws for a kernel's fault.
  ConvCheckReport run_and_compare(const ConvLauncher& launch, const ConvArgs& args,
                                  std::size_t output_floats);

  const ReferenceValues& references() {
    if (!reference) {
      reference = full_reference() ? reference_conv2d(shape, input, filter)
                                   : reference_conv2d_at(shape, input, filter, samples());
    }
    return *reference;
  }
};

ConvCheckReport ConvVerifier::State::run_and_compare(const ConvLauncher& launch,
                                                     const ConvArgs& args,
                                                     std::size_t output_floats) {
  ConvCheckReport report;
  try {
    poison_device(args.output, output_floats * sizeof(float));
    launch(args, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> all(output_floats);
    CUDA_CHECK(
        cudaMemcpy(all.data(), args.output, output_floats * sizeof(float), cudaMemcpyDeviceToHost));
    const std::size_t count = static_cast<std::size_t>(shape.output_elements());
    for (std::size_t i = count; i < all.size(); ++i)
      report.guard_changes += is_poison(all[i]) ? 0 : 1;
    const std::span<const float> output(all.data(), count);
    bool nothing_written = report.guard_changes == 0;
    for (std::size_t i = 0; i < count && nothing_written; ++i)
      nothing_written = is_poison(output[i]);
    if (nothing_written) {
      report.outcome = CheckOutcome::kNotImplemented;
      report.message = "never written: not implemented yet";
      return report;
    }
    report.comparison =
        compare_gemm(output, shape.q(), references(), static_cast<int>(shape.reduction_length()));
    const bool passed = report.comparison.passed() && report.guard_changes == 0;
    report.outcome = passed ? CheckOutcome::kPassed : CheckOutcome::kFailed;
    report.message = report.comparison.describe();
    if (report.guard_changes > 0) {
      report.message += "; " + std::to_string(report.guard_changes) +
                        " floats written past the end of the output";
    }
  } catch (const std::exception& error) {
    report.outcome = CheckOutcome::kFailed;
    report.message = std::string("error: ") + error.what();
    (void)cudaGetLastError();
  }
  return report;
}

ConvVerifier::ConvVerifier(const ConvShape& shape, std::uint64_t seed)
    : state_(std::make_unique<State>()) {
  validate_conv_shape(shape, "ConvVerifier");
  State& st = *state_;
  st.shape = shape;
  st.seed = seed;
  st.input.resize(static_cast<std::size_t>(shape.input_elements()));
  st.filter.resize(static_cast<std::size_t>(shape.filter_elements()));
  fill_uniform(st.input, derive_seed(seed, "input"));
  fill_uniform(st.filter, derive_seed(seed, "filter"));
  st.description =
      st.full_reference()
          ? "CPU reference (all " + std::to_string(shape.output_elements()) + " elements)"
          : "CPU reference (" + std::to_string(st.samples().size()) + " sampled elements)";
}

ConvVerifier::~ConvVerifier() = default;

const std::string& ConvVerifier::reference_description() const {
  return state_->description;
}

ConvCheckReport ConvVerifier::check(const ConvLauncher& launch) {
  State& st = *state_;
  try {
    if (st.device_output.size() == 0) {
      st.device_input = DeviceBuffer<float>(std::span<const float>(st.input));
      st.device_filter = DeviceBuffer<float>(std::span<const float>(st.filter));
      st.device_output =
          DeviceBuffer<float>(static_cast<std::size_t>(st.shape.output_elements()) + kGuardFloats);
    }
  } catch (const std::exception& error) {
    return {CheckOutcome::kFailed, std::string("error: ") + error.what(), {}, 0};
  }
  return st.run_and_compare(
      launch,
      ConvArgs{st.shape, st.device_input.data(), st.device_filter.data(), st.device_output.data()},
      st.device_output.size());
}

ConvCheckReport ConvVerifier::check_in(const ConvLauncher& launch, const ConvArgs& timed) {
  State& st = *state_;
  if (timed.shape.label() != st.shape.label()) {
    throw std::invalid_argument("ConvVerifier::check_in: timed shape " + timed.shape.label() +
                                " is not the verifier's " + st.shape.label());
  }
  CUDA_CHECK(cudaMemcpy(const_cast<float*>(timed.input), st.input.data(),
                        st.input.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(const_cast<float*>(timed.filter), st.filter.data(),
                        st.filter.size() * sizeof(float), cudaMemcpyHostToDevice));
  return st.run_and_compare(launch, timed, static_cast<std::size_t>(st.shape.output_elements()));
}

}  // namespace cudalabs
