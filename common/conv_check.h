/// @file conv_check.h
/// @brief The verification protocol for a convolution kernel: fresh random inputs, a NaN-poisoned
/// output with a poisoned guard band behind it, one launch, then every element against the CPU
/// reference (reference_conv.h) with the bounds of gemm_compare.h.
#pragma once

#include "common/conv_types.h"
#include "common/gemm_check.h"
#include "common/gemm_compare.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace cudalabs {

/// Launches a convolution kernel on `stream` (nullptr: the default stream).
using ConvLauncher = std::function<void(const ConvArgs& args, cudaStream_t stream)>;

/// What one check found.
struct ConvCheckReport {
  CheckOutcome outcome = CheckOutcome::kFailed;  ///< the verdict
  std::string message;             ///< one line: the verdict with the worst element and its bound
  GemmComparison comparison;       ///< the output, viewed as an (N*F*P) x Q matrix
  std::int64_t guard_changes = 0;  ///< floats of the guard band behind the output that were written
};

/// Inputs and the reference for one shape, built once and used to check any number of launchers.
class ConvVerifier {
 public:
  /// Problems with up to this many multiply-adds get a full CPU reference; larger ones are checked
  /// at sampled elements (every edge class plus random ones).
  static constexpr std::int64_t kFullReferenceLimit = std::int64_t{1} << 33;

  /// Draws input and filters from `seed`; they are uploaded at the first check and the reference
  /// is computed at the first check that needs it (a TODO kernel never does). Requires a GPU.
  ConvVerifier(const ConvShape& shape, std::uint64_t seed);
  ~ConvVerifier();
  ConvVerifier(const ConvVerifier&) = delete;
  ConvVerifier& operator=(const ConvVerifier&) = delete;

  /// Poisons the output and its guard band, launches, and compares. Never throws for a kernel's
  /// fault: a CUDA error becomes a failed report naming it.
  ConvCheckReport check(const ConvLauncher& launch);

  /// The check after timing, in the buffers a kernel was timed in: this verifier's input and
  /// filters copied into `timed`'s (whose shape must be this verifier's), its output poisoned, one
  /// launch with exactly `timed`, every element compared as check() does (no guard band: the
  /// timed output has none). A kernel that skips work it has "already done" for these pointers
  /// leaves the timed inputs' result and fails.
  ConvCheckReport check_in(const ConvLauncher& launch, const ConvArgs& timed);

  /// "CPU reference (all 1722368 elements)" or "(N sampled elements)".
  const std::string& reference_description() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cudalabs
