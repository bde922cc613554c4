// Lab 11's few-columns kernel (few_columns.cuh) at several slices of K, at shapes given on the
// command line, against the model's time of each (best_plan.h: predicted_few_columns_us), `best`
// and cuBLAS BF16, in one process: how fast the kernel is, and what plan_few_columns picks.
//
//   bench_few_columns11 MxNxK [MxNxK ...]      (N at most 8)
//
// Operands tightly packed (lda = K: A's rows allow 16-, 8-, 4- or 2-byte loads as K does), in as
// many sets as make twice the L2's 50 MB (at most 8), each launch of a graph taking the next set.
// Per shape and plan: the GPU time a launch (a CUDA graph of R launches, replayed: 9 rounds with
// every plan in each, the first 2 not counted, medians), C checked against cuBLAS's (relative L2).
// One line a plan: m n k plan model_us graph_us rel_l2; plan "s<slice_k>", "planned" (what
// plan_few_columns picks), "best" and "cublas".
//
// Built as bench_plans11.cu is (../../lab11_few_rows_s33_nvidia-h200/scripts/), this file in its
// place.
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

// The slices of K timed besides K whole (bench_few_columns11_long.cu times others).
#ifndef BENCH_FEW_COLUMNS_SLICES
#define BENCH_FEW_COLUMNS_SLICES 128, 256, 512, 768, 1024
#endif

#include "bench_support.cuh"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MxNxK [MxNxK ...]\n", argv[0]);
    return 1;
  }
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudalabs::CublasHandle cublas;
  const int sms = cudalabs::multiprocessor_count();
  std::mt19937 rng(20261204);
  std::printf("m n k plan model_us graph_us rel_l2\n");
  for (int i = 1; i < argc; ++i) {
    int m = 0, n = 0, k = 0;
    if (!bench::parse_shape(argv[i], m, n, k)) return 1;
    const cudalabs::GemmShape shape{m, n, k};
    if (!lab11::few_columns_fit(shape)) {
      std::fprintf(stderr, "shape %s: the few-columns kernel does not fit it\n", argv[i]);
      return 1;
    }
    const double set_bytes = 2.0 * (double(m) * k + double(k) * n) + 4.0 * m * n;
    const int sets = std::clamp(static_cast<int>(std::ceil(100e6 / set_bytes)), 1, 8);
    std::vector<std::unique_ptr<bench::Problem>> problems;
    for (int set = 0; set < sets; ++set)
      problems.push_back(std::make_unique<bench::Problem>(m, n, k, rng, stream));
    bench::Problem& problem = *problems[0];
    problem.compute_reference(cublas);
    int next = 0;  // the set the next launch takes
    const auto args_of = [&]() -> const cudalabs::Bf16GemmArgs& {
      const cudalabs::Bf16GemmArgs& a = problems[next]->args;
      next = (next + 1) % sets;
      return a;
    };
    struct Plan {
      std::string name;
      double model_us;
      std::function<void()> call;
    };
    std::vector<Plan> plans;
    const lab11::FewColumnsLoads loads = lab11::few_columns_loads(
        shape, !cudalabs::rows_allow_16_byte_loads(problem.args.a, problem.args.lda),
        !cudalabs::rows_allow_16_byte_loads(problem.args.b, problem.args.ldb));
    const auto add_plan = [&](const std::string& name, int slice_k) {
      const lab11::FewColumnsPlan plan{cudalabs::ceil_div(k, slice_k), slice_k,
                                       lab11::predicted_few_columns_us(shape, slice_k, sms, loads)};
      plans.push_back({name, plan.predicted_us,
                       [&, plan] { lab11::run_few_columns(args_of(), plan, stream); }});
    };
    const int whole = (k + 7) / 8 * 8;
    for (const int slice_k : {BENCH_FEW_COLUMNS_SLICES})
      if (slice_k < whole) add_plan("s" + std::to_string(slice_k), slice_k);
    if (whole <= lab11::kFewColumnsMaxSliceK) add_plan("s" + std::to_string(whole), whole);
    const lab11::FewColumnsPlan planned = lab11::plan_few_columns(shape, sms, loads);
    add_plan("planned", planned.slice_k);
    plans.push_back({"best", 0.0, [&] { lab11::launch_best(args_of(), stream); }});
    plans.push_back({"cublas", 0.0, [&] {
                       cudalabs::cublas_gemm_bf16_row_major(cublas, problems[next]->reference,
                                                            stream);
                       next = (next + 1) % sets;
                     }});
    // A graph of R launches of each plan: about half a millisecond of the slowest.
    double slowest_ms = 0.0;
    std::vector<double> rel(plans.size(), 0.0);
    for (std::size_t p = 0; p < plans.size(); ++p) {
      next = 0;  // the check's launch writes set 0's C
      if (plans[p].name != "cublas") rel[p] = problem.rel_l2_of(plans[p].call);
      slowest_ms = std::max(slowest_ms, bench::elapsed_ms(stream, plans[p].call));
    }
    const int repeats = std::clamp(static_cast<int>(0.5 / std::max(slowest_ms, 1e-3)), 3, 100);
    std::vector<cudaGraphExec_t> execs;
    std::vector<std::function<void()>> calls;
    for (const Plan& plan : plans) {
      next = 0;
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (int r = 0; r < repeats; ++r) plan.call();
      CK(cudaStreamEndCapture(stream, &graph));
      CK(cudaGraphInstantiate(&exec, graph, 0));
      CK(cudaGraphDestroy(graph));
      execs.push_back(exec);
    }
    for (cudaGraphExec_t exec : execs)
      calls.push_back([&, exec] { CK(cudaGraphLaunch(exec, stream)); });
    const std::vector<double> us = bench::interleaved_us(stream, calls, repeats);
    for (std::size_t p = 0; p < plans.size(); ++p)
      std::printf("%d %d %d %s %.2f %.2f %.2e\n", m, n, k, plans[p].name.c_str(), plans[p].model_us,
                  us[p], rel[p]);
    std::printf("%d %d %d planned_is %d slices of %d (sets %d, repeats %d)\n", m, n, k,
                planned.slices, planned.slice_k, sets, repeats);
    std::fflush(stdout);
    for (cudaGraphExec_t exec : execs) CK(cudaGraphExecDestroy(exec));
  }
  CK(cudaStreamDestroy(stream));
  return 0;
}
