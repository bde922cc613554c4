/// @file grader/referee/remote_gemm.h
/// @brief A GEMM of the student's made in the runner: the operands are copied from the referee's
/// device buffers into the runner's (same misalignment, guards around them), the call is made
/// there, and C comes back into the referee's buffer, where the grading tests check it as they
/// would a local launch.
#pragma once

#include "common/gemm_types.h"
#include "grader/labs/gemm_remote.h"
#include "grader/referee/remote_operand.h"
#include "grader/referee/remote_runner.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace grader::referee {

/// The operands of `args` put in the runner for one call of `session` (A and B copied there, C
/// copied back after the run), as a GEMM call carries them.
template <class Input>
gemm_remote::GemmOperands put_gemm_operands(OperandSession& session,
                                            const cudalabs::GemmArgsOf<Input>& args);

/// Makes `call` (a GEMM declaration: gemm_remote::GemmVariant, GemmBest, lab 07's Plan) on `args`.
/// Throws as the student's code did (std::invalid_argument for refused arguments), or
/// std::runtime_error for a crash, a time limit or a write outside C.
template <class Input, class Args>
void remote_gemm(Args call, const cudalabs::GemmArgsOf<Input>& args, cudaStream_t stream) {
  OperandSession session(RemoteRunner::shared(), stream);
  call.gemm = put_gemm_operands(session, args);
  session.run({remote::to_call(call)});
}

/// Elements of a rows x cols matrix with leading dimension ld, or -1 when the three do not
/// describe one (a bad-argument test's operands are never copied).
std::int64_t operand_elements(int rows, int cols, int ld);

}  // namespace grader::referee
