/// @file gemm_check.h
/// @brief Verifies a GEMM launcher on the GPU against the CPU reference (and cuBLAS for large
/// sizes).
///
/// The protocol, shared by the lab drivers and the grading tests:
///  1. Fresh random A, B and C (padding included) from a printed seed; never zeros.
///  2. Write check: C poisoned with NaN, the launcher runs with beta = 0 and must write every
///  element
///     of the m x n region, none of the padding, and match alpha * A * B.
///  3. Value check (when beta != 0): C reloaded with its random values, the launcher runs with the
///     case's alpha and beta and must match alpha * A * B + beta * C.
/// Problems up to `full_reference_limit` multiply-adds are compared element by element with the CPU
/// reference. Larger ones compare sampled elements with the CPU and every element with cuBLAS,
/// whose own result is first checked against the CPU samples.
#pragma once

#include "common/gemm_compare.h"
#include "common/gemm_variant.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cudalabs {

/// One GEMM to check: the shape, alpha, beta and extra elements at the end of each row.
struct GemmCase {
  GemmShape shape;         ///< m, n, k
  float alpha = 1.0f;      ///< scale of A * B
  float beta = 0.0f;       ///< scale of the old C
  GemmLayout layout = {};  ///< padded leading dimensions and the offset of the matrices (an
                           ///< offset of 1 misaligns them for 128-bit accesses)

  /// e.g. "17x33x65 alpha=1.5 beta=-0.5 ld+(1,2,3)".
  std::string label() const;
};

/// How a check ended.
enum class CheckOutcome {
  kPassed,          ///< every element written and within its bounds
  kNotImplemented,  ///< no element written at all: a TODO kernel
  kFailed,          ///< some elements unwritten or wrong, padding touched, or an error was thrown
};

/// What the drivers' tables print for an outcome: "PASS", "not implemented yet" or "FAIL".
const char* outcome_text(CheckOutcome outcome);

/// The result of checking one launcher on one case.
struct GemmCheckReport {
  CheckOutcome outcome = CheckOutcome::kFailed;  ///< the verdict
  std::string message;         ///< one line: the verdict with the worst element and its bound
  GemmComparison write_check;  ///< beta = 0 on a poisoned C
  GemmComparison
      value_check;  ///< the case's beta on a random C (a copy of write_check when beta == 0)
  std::int64_t padding_changes = 0;  ///< elements beyond column n that the kernel changed
  double worst_relative_l2() const;  ///< the larger relative L2 error of the two checks
};

/// The tolerance of a GEMM accumulated in FP32 by the tensor cores: twice the classical bound per
/// element, and over the matrix 8 u sqrt(k + 2) plus u k / 8, a systematic term that allows one
/// round-toward-zero per 16-term step (the tensor cores align and truncate the products they add).
GemmTolerance tensor_core_tolerance();

/// The tolerance of lab 11's FP16 rungs: the same, with the systematic term u k / 2, which allows
/// one round-toward-zero per 4-term step: the tensor cores of compute capability 7.x align and
/// truncate every 4 products (later ones every 8 or 16, within the same bound). FP16 inputs are
/// products exact in FP32, as BF16 ones are; only the accumulation differs.
GemmTolerance fp16_tensor_core_tolerance();

/// The tolerance a result with `Input` operands is held to against the CPU reference:
/// GemmTolerance{} for float, tensor_core_tolerance() for BF16, fp16_tensor_core_tolerance() for
/// FP16.
template <class Input>
GemmTolerance input_tolerance();

/// `value` rounded to `Input` (to nearest) and back to float: what the GPU reads of it. The value
/// itself for float.
template <class Input>
float round_to_input(float value);

/// Knobs of the protocol.
struct GemmCheckOptions {
  /// Problems with m * n * k up to this many multiply-adds get a full CPU reference.
  std::int64_t full_reference_limit = std::int64_t{1} << 31;
  /// Random elements compared with the CPU for larger problems (edges and corners come on top).
  int sampled_elements = 1024;
};

/// Inputs and references for one case, built once and used to check any number of launchers.
///
/// `Input` is the element type of A and B: float (labs 01-10), __nv_bfloat16 or __half (lab 11).
/// With BF16 or FP16 the random inputs are rounded to that type first, so the CPU reference
/// (double) computes the exact product of the very values the GPU reads; the tolerance is then the
/// tensor cores' FP32 accumulation (input_tolerance), and what the rounding itself costs is
/// reported apart (rounding_cost).
template <class Input>
class BasicGemmVerifier {
 public:
  /// Draws the inputs from `seed`, uploads them and computes the references. Requires a GPU.
  BasicGemmVerifier(const GemmCase& gemm_case, std::uint64_t seed, GemmCheckOptions options = {});
  ~BasicGemmVerifier();
  BasicGemmVerifier(const BasicGemmVerifier&) = delete;
  BasicGemmVerifier& operator=(const BasicGemmVerifier&) = delete;

  /// Runs the protocol on `launch`. Exceptions from the launcher (bad arguments, CUDA errors)
  /// become a kFailed report naming them.
  GemmCheckReport check(GemmLauncherOf<Input> launch);

  /// Lab 11: the relative L2 error of the last checked result (beta = 0) against the FP32 inputs
  /// before they were rounded to BF16, on sampled elements: what BF16 costs, not a kernel's
  /// error. NaN before a check has run or for float inputs.
  double rounding_cost() const;

  /// What the results are compared with, e.g. "CPU reference (all 561 elements)".
  const std::string& reference_description() const;
  /// The seed the inputs were drawn from.
  std::uint64_t seed() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The FP32 verifier of labs 01-10.
using GemmVerifier = BasicGemmVerifier<float>;
/// Lab 11's: BF16 A and B.
using Bf16GemmVerifier = BasicGemmVerifier<__nv_bfloat16>;
/// Lab 11's FP16 rungs: FP16 A and B.
using Fp16GemmVerifier = BasicGemmVerifier<__half>;

}  // namespace cudalabs
