// Lab 07's runner: a variant by name, `best`, and a plan rebuilt from best_plan.h's table.
#include "grader/runner/gemm_handlers.h"
#include "labs/07_wide_loads/lab.h"

namespace {

using grader::Call;
using grader::runner::Context;

void run_plan(const Call& call, Context& context) {
  const std::span<const lab07::TileCandidate> candidates = lab07::best_candidates();
  const std::int64_t tile = grader::runner::integer(call, 6);
  if (tile < 0 || tile >= static_cast<std::int64_t>(candidates.size()))
    throw grader::ChannelError("gemm.plan: no tile " + std::to_string(tile));
  lab07::BestPlan plan;
  plan.candidate = &candidates[static_cast<std::size_t>(tile)];
  plan.splits = grader::runner::int_arg(call, 7);
  plan.slice_k = grader::runner::int_arg(call, 8);
  plan.stream_blocks = grader::runner::int_arg(call, 9);
  lab07::launch_plan(plan, grader::runner::gemm_args<float>(call, context), context.stream());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      {"gemm.variants", &run_gemm_variant<float, &lab07::variants>},
      {"gemm.best", &run_gemm_best<float, &lab07::best_gemm>},
      {"gemm.plan", &run_plan},
  };
  return handlers;
}
