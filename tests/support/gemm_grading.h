/// @file tests/support/gemm_grading.h
/// @brief The grading tests every GEMM lab shares: each variant on square, rectangular, odd and
/// padded shapes with several alpha/beta, plus bad-argument checks.
#pragma once

#include "common/gemm_check.h"
#include "common/gemm_variant.h"

#include <span>
#include <string>
#include <vector>

namespace cudalabs::testing {

/// One grading shape: a name usable in a test name and the case.
struct GradingCase {
  std::string name;  ///< e.g. "odd_17x33x65"
  GemmCase gemm;     ///< shape, alpha, beta, leading-dimension padding
};

/// The shapes every GEMM variant is graded on: 1x1x1, odd (17x33x65, 1000x999x1001, ...),
/// square, rectangular, K = 1, single rows and columns, padded leading dimensions, pointers off
/// 16-byte alignment (all three, or only C), leading dimensions 2 mod 4, a large K over a small C
/// (where lab 07's `best` splits K), alpha = 0, and a 2048-cube checked by samples on the CPU and
/// every element against cuBLAS.
const std::vector<GradingCase>& gemm_grading_cases();

/// Registers, with GoogleTest, one test per (variant, case) that runs the verification protocol
/// (gemm_check.h), and one bad-argument test per variant; `extra_cases` join the standard ones. In
/// the student build (`build` == "student") a variant that writes nothing is reported skipped as
/// "not implemented yet"; in the solution build it fails. A variant that cannot run on this GPU
/// (its `unavailable` gives a reason) is skipped with that reason. `Input` is float, or BF16 for
/// lab 11 (verified as Bf16GemmVerifier does). Call from a static initialiser; returns true.
template <class Input>
bool register_gemm_grading_tests(std::span<const GemmVariantOf<Input>> variants,
                                 const std::string& build,
                                 const std::vector<GradingCase>& extra_cases = {});

}  // namespace cudalabs::testing
