/// @file grader/runner/gemm_handlers.h
/// @brief The runner's side of remote GEMMs (the calls: grader/labs/gemm_remote.h): the arguments
/// rebuilt on the runner's buffers, and handlers that call a variant of the student's list by name
/// or the lab's best_gemm.
#pragma once

#include "common/gemm_variant.h"
#include "grader/labs/gemm_remote.h"
#include "grader/runner/runner.h"

#include <span>

namespace grader::runner {

/// The GEMM arguments `gemm` carries, on the runner's buffers.
template <class Input>
cudalabs::GemmArgsOf<Input> gemm_args(const gemm_remote::GemmOperands& gemm,
                                      const Context& context) {
  cudalabs::GemmArgsOf<Input> args;
  args.m = gemm.m;
  args.n = gemm.n;
  args.k = gemm.k;
  args.lda = gemm.lda;
  args.ldb = gemm.ldb;
  args.ldc = gemm.ldc;
  args.alpha = static_cast<float>(gemm.alpha);
  args.beta = static_cast<float>(gemm.beta);
  args.a = context.as<const Input>(gemm.a);
  args.b = context.as<const Input>(gemm.b);
  args.c = context.as<float>(gemm.c);
  return args;
}

template <class Input, const char* List,
          std::span<const cudalabs::GemmVariantOf<Input>> (*Variants)()>
void run_gemm_variant(const gemm_remote::GemmVariant<List>& call, Context& context) {
  const auto& variant = find_named(Variants(), call.variant);
  if (variant.launch == nullptr)
    throw Missing("variant '" + call.variant + "' has no launch function");
  variant.launch(gemm_args<Input>(call.gemm, context), context.stream());
}

/// The handler of gemm_remote::GemmVariant<List>: the variant of `Variants()` (the student's
/// list) named by the call.
template <class Input, const char* List,
          std::span<const cudalabs::GemmVariantOf<Input>> (*Variants)()>
constexpr Handler gemm_variant_handler() {
  return remote_handler<gemm_remote::GemmVariant<List>, &run_gemm_variant<Input, List, Variants>>();
}

template <class Input, void (*Best)(const cudalabs::GemmArgsOf<Input>&, cudaStream_t)>
void run_gemm_best(const gemm_remote::GemmBest& call, Context& context) {
  Best(gemm_args<Input>(call.gemm, context), context.stream());
}

/// The handler of gemm_remote::GemmBest: a lab's best_gemm(args, stream).
template <class Input, void (*Best)(const cudalabs::GemmArgsOf<Input>&, cudaStream_t)>
constexpr Handler gemm_best_handler() {
  return remote_handler<gemm_remote::GemmBest, &run_gemm_best<Input, Best>>();
}

}  // namespace grader::runner
