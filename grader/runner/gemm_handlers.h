/// @file grader/runner/gemm_handlers.h
/// @brief The runner's side of remote GEMMs: the arguments rebuilt on the runner's buffers, and
/// handlers that call a variant of the student's list by name.
#pragma once

#include "common/gemm_variant.h"
#include "grader/runner/runner.h"

#include <span>

namespace grader::runner {

/// m, n, k, lda, ldb, ldc, alpha, beta and the buffers A, B, C of a remote GEMM (remote_gemm.h).
template <class Input>
cudalabs::GemmArgsOf<Input> gemm_args(const Call& call, const Context& context) {
  cudalabs::GemmArgsOf<Input> args;
  args.m = int_arg(call, 0);
  args.n = int_arg(call, 1);
  args.k = int_arg(call, 2);
  args.lda = int_arg(call, 3);
  args.ldb = int_arg(call, 4);
  args.ldc = int_arg(call, 5);
  args.alpha = static_cast<float>(real(call, 0));
  args.beta = static_cast<float>(real(call, 1));
  args.a = context.as<const Input>(call, 0);
  args.b = context.as<const Input>(call, 1);
  args.c = context.as<float>(call, 2);
  return args;
}

/// "gemm.variant": the variant of `Variants()` (the student's list) named by the call.
template <class Input, std::span<const cudalabs::GemmVariantOf<Input>> (*Variants)()>
void run_gemm_variant(const Call& call, Context& context) {
  const auto& variant = find_named(Variants(), call.variant);
  if (variant.launch == nullptr)
    throw Missing("variant '" + call.variant + "' has no launch function");
  variant.launch(gemm_args<Input>(call, context), context.stream());
}

/// "gemm.best": a lab's best_gemm(args, stream).
template <class Input, void (*Best)(const cudalabs::GemmArgsOf<Input>&, cudaStream_t)>
void run_gemm_best(const Call& call, Context& context) {
  Best(gemm_args<Input>(call, context), context.stream());
}

}  // namespace grader::runner
