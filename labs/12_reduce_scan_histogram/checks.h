/// @file labs/12_reduce_scan_histogram/checks.h
/// @brief Lab 12's checks on the GPU, shared by the driver and the grading tests: fresh seeded
/// inputs at any offset (an offset moves the arrays off 16-byte alignment), outputs poisoned with a
/// guard band around them, one launch, and every output against the CPU reference.
#pragma once

#include "common/device_buffer.h"
#include "common/gemm_check.h"
#include "lab.h"
#include "reference.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lab12 {

/// Elements of the guard band on each side of a checked output: a kernel must leave them poisoned.
inline constexpr std::size_t kGuard = 64;

/// What one check found.
struct CheckReport {
  cudalabs::CheckOutcome outcome = cudalabs::CheckOutcome::kFailed;  ///< the verdict
  std::string message;  ///< one line: what was checked and what was found
  double error = 0.0;   ///< the sum: |computed - reference| on the random input
  double bound = 0.0;   ///< the sum: the bound that error is held to (may be infinite)
};

/// The sum's two inputs on the device, with their references: integers whose sum every order of
/// additions gets exactly (exact_sum_inputs: checked bit for bit), and random floats in [-1, 1)
/// (checked against Neumaier's double sum with sum_error_bound at the variant's addition depth).
class SumVerifier {
 public:
  /// `count` floats starting `offset` floats into their allocation. Requires a GPU.
  SumVerifier(std::size_t count, std::size_t offset, std::uint64_t seed);

  /// Runs `variant` on both inputs (twice on the random one when it promises the same bits) and
  /// compares. Never throws for a kernel's fault: an error becomes a failed report naming it.
  CheckReport check(const SumVariant& variant);

  /// "1000003 floats at offset 1 (misaligned)".
  std::string description() const;

 private:
  std::size_t count_, offset_;
  cudalabs::DeviceBuffer<float> exact_input_, random_input_;
  double exact_sum_ = 0.0, random_sum_ = 0.0, magnitudes_ = 0.0;
};

/// The scan's input on the device and its reference.
class ScanVerifier {
 public:
  /// `count` values; the input starts `input_offset` values into its allocation and the output
  /// `output_offset` values after a guard band. Requires a GPU.
  ScanVerifier(std::size_t count, std::size_t input_offset, std::size_t output_offset,
               std::uint64_t seed);

  /// Runs `variant` and compares every value (and the guard bands around the output).
  CheckReport check(const ScanVariant& variant);

  /// "1000003 values (input offset 1, output offset 3)".
  std::string description() const;

 private:
  std::size_t count_, input_offset_, output_offset_;
  cudalabs::DeviceBuffer<std::uint32_t> input_;
  std::vector<std::uint32_t> expected_;
};

/// The histogram's input on the device and its reference.
class HistogramVerifier {
 public:
  /// `count` bytes drawn as `distribution` says, starting `offset` bytes into their allocation.
  /// Requires a GPU.
  HistogramVerifier(std::size_t count, std::size_t offset, ByteDistribution distribution,
                    std::uint64_t seed);

  /// Runs `variant` and compares every bin (and the guard band after them).
  CheckReport check(const HistogramVariant& variant);

  /// "1000003 skewed bytes at offset 3".
  std::string description() const;

 private:
  std::size_t count_, offset_;
  ByteDistribution distribution_;
  cudalabs::DeviceBuffer<std::uint8_t> input_;
  std::array<std::uint32_t, kBins> expected_{};
};

// ---- In the timed buffers ----
// The checks after timing (the driver's recheck, common/run_protocol.h): fresh inputs drawn into
// the very buffers a variant was timed in, its output poisoned, one launch with exactly the timed
// arguments (workspace included, left as the timing left it), the output against the CPU. A
// kernel that skips work it has "already done" for these pointers leaves an old result here.

/// The sum on fresh exact_sum_inputs in `timed.input`: the sum bit for bit.
CheckReport check_sum_in_timed_buffers(const SumVariant& variant, const SumArgs& timed,
                                       std::uint64_t seed);

/// The scan on fresh scan_inputs in `timed.input`: every value bit for bit.
CheckReport check_scan_in_timed_buffers(const ScanVariant& variant, const ScanArgs& timed,
                                        std::uint64_t seed);

/// The histogram on fresh bytes drawn as `distribution` in `timed.input`: every bin exact.
CheckReport check_histogram_in_timed_buffers(const HistogramVariant& variant,
                                             const HistogramArgs& timed,
                                             ByteDistribution distribution, std::uint64_t seed);

}  // namespace lab12
