// Lab 07's runner: a variant by name, `best`, and a plan rebuilt from best_plan.h's table (the
// calls: gemm_remote.h and lab07_remote.h).
#include "grader/labs/lab07_remote.h"
#include "grader/runner/gemm_handlers.h"
#include "labs/07_wide_loads/lab.h"

namespace {

void run_plan(const grader::lab07_remote::Plan& call, grader::runner::Context& context) {
  const std::span<const lab07::TileCandidate> candidates = lab07::best_candidates();
  if (call.tile < 0 || call.tile >= static_cast<std::int64_t>(candidates.size()))
    throw grader::ChannelError(std::string(grader::lab07_remote::Plan::kFunction) + ": no tile " +
                               std::to_string(call.tile));
  lab07::BestPlan plan;
  plan.candidate = &candidates[static_cast<std::size_t>(call.tile)];
  plan.splits = call.splits;
  plan.slice_k = call.slice_k;
  plan.stream_blocks = call.stream_blocks;
  lab07::launch_plan(plan, grader::runner::gemm_args<float>(call.gemm, context), context.stream());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      gemm_variant_handler<float, gemm_remote::kVariants, &lab07::variants>(),
      gemm_best_handler<float, &lab07::best_gemm>(),
      remote_handler<grader::lab07_remote::Plan, &run_plan>(),
  };
  return handlers;
}
