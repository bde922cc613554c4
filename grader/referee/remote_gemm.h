/// @file grader/referee/remote_gemm.h
/// @brief A GEMM of the student's made in the runner: the operands are copied from the referee's
/// device buffers into the runner's (same misalignment, guards around them), the call is made
/// there, and C comes back into the referee's buffer, where the grading tests check it as they
/// would a local launch.
#pragma once

#include "common/gemm_types.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace grader::referee {

/// Makes `function` (a GEMM handler of the lab's runner: "gemm.variant", "gemm.best", ...) on
/// `args`, naming `variant` where the function takes one. `extra` integers follow m, n, k and the
/// leading dimensions (lab 07's plan). Throws as the student's code did (std::invalid_argument for
/// refused arguments), or std::runtime_error for a crash, a time limit or a write outside C.
template <class Input>
void remote_gemm(const std::string& function, const std::string& variant,
                 const cudalabs::GemmArgsOf<Input>& args, cudaStream_t stream,
                 const std::vector<std::int64_t>& extra = {});

/// Elements of a rows x cols matrix with leading dimension ld, or -1 when the three do not
/// describe one (a bad-argument test's operands are never copied).
std::int64_t operand_elements(int rows, int cols, int ld);

}  // namespace grader::referee
