/// @file labs/13_attention/checks.h
/// @brief Lab 13's checks on the GPU, shared by the driver and the grading tests: fresh seeded
/// inputs, outputs poisoned with a guard band around them, one launch, and the outputs against the
/// CPU reference in double with the error bounds of reference.h.
#pragma once

#include "common/device_buffer.h"
#include "common/gemm_check.h"
#include "lab.h"
#include "reference.h"

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lab13 {

/// Elements of the guard band on each side of a checked output: a kernel must leave them poisoned.
inline constexpr std::size_t kGuard = 64;

/// What one check found.
struct CheckReport {
  cudalabs::CheckOutcome outcome = cudalabs::CheckOutcome::kFailed;  ///< the verdict
  std::string message;          ///< one line: what was checked and what was found
  double worst_error = 0.0;     ///< the largest |output - reference| checked
  double worst_fraction = 0.0;  ///< the largest |output - reference| / bound (<= 1 passes)
};

/// A softmax problem on the device and its reference.
class SoftmaxVerifier {
 public:
  /// rows x columns inputs drawn as `inputs` says, starting `offset` floats into their allocation;
  /// `in_place` runs with output == input. Requires a GPU.
  SoftmaxVerifier(int rows, int columns, SoftmaxInputs inputs, std::size_t offset, bool in_place,
                  std::uint64_t seed);

  /// Runs `variant` and compares every output with its bound.
  CheckReport check(const SoftmaxVariant& variant);

  /// The check after timing, in the buffers `variant` was timed in (`timed`: rows x columns of
  /// this verifier, output not the input): this verifier's inputs copied into `timed.input`, the
  /// output poisoned, one launch with exactly `timed`, every output against its bound.
  CheckReport check_in_timed_buffers(const SoftmaxVariant& variant, const SoftmaxArgs& timed);

  /// "1000 x 1001 masked (offset 1, in place)".
  std::string description() const;

 private:
  // Every output of `got` (rows x columns) against the reference; `guards` values were written
  // around it.
  CheckReport compare(const float* got, std::size_t guards, const std::string& who) const;

  int rows_, columns_;
  SoftmaxInputs inputs_;
  std::size_t offset_;
  bool in_place_;
  std::vector<float> input_;
};

/// An attention problem on the device (Q, K, V in BF16) and the references of the rows it checks:
/// every row, or (`sampled`) the first, second, 64th, 65th, middle and last queries of the first,
/// middle and last heads and 24 random (head, query) pairs. Every output element is checked to
/// have been written either way.
class AttentionVerifier {
 public:
  /// Draws Q and K uniform in [-2, 2) and V in [-1, 1), rounded to BF16; `rising_keys`: key j of
  /// each head multiplied by 1 + 7 j / sequence before rounding, so that the scores' maximum rises
  /// along the keys again and again (an online softmax must rescale its output tile after tile,
  /// and the first keys' exponentials underflow). Requires a GPU.
  AttentionVerifier(const AttentionShape& shape, std::uint64_t seed, bool sampled,
                    bool rising_keys = false);

  /// Runs `variant` (the caller has checked that it can run here) and compares.
  CheckReport check(const AttentionVariant& variant);

  /// The check after timing, in the buffers `variant` was timed in (`timed`: this verifier's Q, K,
  /// V and shape, an output and a workspace of its own): Q, K and V redrawn from `seed` in place,
  /// the output poisoned, one launch with exactly `timed`, the checked rows against the reference.
  /// Later checks compare with the redrawn inputs (and no longer with compare_everything_with's
  /// output).
  CheckReport check_in_timed_buffers(const AttentionVariant& variant, const AttentionArgs& timed,
                                     std::uint64_t seed);

  /// Compares an output computed elsewhere (cuBLAS's) at the checked rows.
  CheckReport check_output(const std::vector<__nv_bfloat16>& output, const std::string& who);

  /// From now on, also compare every element of each checked output with `output` (cuBLAS's,
  /// checked first with check_output): |O - that| <= 1.1 * 2^-6 * max over keys |V[j][c]|, what two
  /// results each within their bound of the exact one can differ by.
  void compare_everything_with(std::vector<__nv_bfloat16> output, std::string name);

  /// The output of the last check's launch (for --dump-dir).
  const std::vector<__nv_bfloat16>& last_output() const { return last_output_; }

  /// The device inputs and the scale.
  const __nv_bfloat16* q() const { return q_.data(); }
  /// See q().
  const __nv_bfloat16* k() const { return k_.data(); }
  /// See q().
  const __nv_bfloat16* v() const { return v_.data(); }
  /// The scale every check uses: default_scale(head_dim).
  float scale() const { return scale_; }
  /// The host copies of the inputs, as BF16.
  const std::vector<__nv_bfloat16>& host_q() const { return host_q_; }
  /// See host_q().
  const std::vector<__nv_bfloat16>& host_k() const { return host_k_; }
  /// See host_q().
  const std::vector<__nv_bfloat16>& host_v() const { return host_v_; }

  /// "b1h3s1000d64_causal (all 3000 rows)".
  std::string description() const;

 private:
  const std::vector<AttentionRowReference>& references();
  void draw(std::uint64_t seed);  // Q, K and V from `seed`, into the device buffers
  CheckReport compare(const std::vector<__nv_bfloat16>& output, const std::string& who,
                      std::size_t guards);

  AttentionShape shape_;
  float scale_;
  bool sampled_;
  bool rising_keys_;
  std::vector<float> q_float_, k_float_, v_float_;
  std::vector<__nv_bfloat16> host_q_, host_k_, host_v_;
  cudalabs::DeviceBuffer<__nv_bfloat16> q_, k_, v_;
  std::vector<std::pair<long long, int>> rows_;  // (head, query) pairs checked
  std::vector<AttentionRowReference> references_;
  std::vector<__nv_bfloat16> everything_;  // an output to compare every element with
  std::string everything_name_;
  std::vector<__nv_bfloat16> last_output_;
};

}  // namespace lab13
