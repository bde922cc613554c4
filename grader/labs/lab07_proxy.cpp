// Lab 07's interface as the referee links it: the variants the grader names, `best` and any plan of
// best_plan.h, each made in the runner on the student's code. best's planner (best_plan.cpp) is
// given code both sides link; its launches (launch.cuh) are given too, but they instantiate the
// student's kernels, so they are compiled into the student's object and forwarded with it.
// describe_plan (lab.h) is not forwarded: it names a kernel of the runner's address space, and
// the suite's CPU test (lab07_best_plan_test.cpp) checks it in the student's own build. The
// calls: gemm_remote.h and lab07_remote.h.
#include "grader/labs/lab07_remote.h"
#include "grader/referee/gemm_workload.h"
#include "grader/referee/remote_variants.h"
#include "labs/07_wide_loads/lab.h"

namespace lab07 {

std::span<const cudalabs::GemmVariant> variants() {
  return grader::referee::remote_gemm_variants<float>();
}

void best_gemm(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  grader::referee::remote_gemm<float>(grader::gemm_remote::GemmBest{}, args, stream);
}

void launch_plan(const BestPlan& plan, const cudalabs::GemmArgs& args, cudaStream_t stream) {
  const std::span<const TileCandidate> candidates = best_candidates();
  std::int64_t tile = -1;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (&candidates[i] == plan.candidate) tile = static_cast<std::int64_t>(i);
  grader::referee::remote_gemm<float>(
      grader::lab07_remote::Plan{.tile = tile,
                                 .splits = plan.splits,
                                 .slice_k = plan.slice_k,
                                 .stream_blocks = plan.stream_blocks},
      args, stream);
}

}  // namespace lab07

std::unique_ptr<grader::referee::Workload> grader::referee::make_workload(
    const std::string& variant, const std::vector<std::string>& args) {
  return gemm_variant_workload<float>(variant, gemm_shape_from(args, {512, 512, 256}));
}
