// Lab 11's warp-specialized kernel at every tile (128 rows by 64, 128 or 256 columns, and 64 rows
// by 64 or 128 with one consumer) and a range of K slices, at shapes given on the command line,
// against the model's time of each plan (best_plan.h), `best` and cuBLAS BF16, in one process:
// what plan_best would pick if its model were right. (Session 31's bench with the 64-row tiles.)
//
//   bench_plans11 MxNxK [MxNxK ...]
//
// Operands tightly packed (bench_support.cuh), in as many sets as make twice the L2's 50 MB (at
// most 8), each launch of a graph taking the next set, as the random-shapes protocol does. Per
// shape and plan: the GPU time a launch (a CUDA graph of R launches, replayed: 9 rounds with every
// plan in each, the first 2 not counted, medians). The plan's C is checked against cuBLAS's
// (relative L2). One line a plan: m n k plan model_us graph_us rel_l2, then "best" and "cublas".
//
// Built from the repository's root, B a CMake build folder of it (the suite view, the common
// library), with the bench support of ../gemm_short_k_s27_nvidia-h200/scripts/:
//   nvcc -DCUDALABS_BUILD_SOLUTION=1 -DCUDALABS_LAB11_SM90A=1 -Isolutions/11_tensor_cores
//     -Ilabs/11_tensor_cores -I. -I$B/suite-view -Ilabs/09_dcgan -Ilabs/07_wide_loads
//     -Idocs/data/history/gemm_short_k_s27_nvidia-h200/scripts -O3
//     --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 bench_plans11.cu
//     labs/11_tensor_cores/tma_maps.cpp $B/common/libcudalabs_common.a -lcublas -lcuda
//     -Xcompiler -fopenmp -lgomp -o bench_plans11
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

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
  std::mt19937 rng(20261203);
  std::printf("m n k plan model_us graph_us rel_l2\n");
  for (int i = 1; i < argc; ++i) {
    int m = 0, n = 0, k = 0;
    if (!bench::parse_shape(argv[i], m, n, k)) return 1;
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
    const cudalabs::GemmShape shape{m, n, k};
    const int k_blocks = cudalabs::ceil_div(k, lab11::SwizzledTile::BK);
    struct Plan {
      std::string name;
      double model_us;
      std::function<void()> call;
    };
    std::vector<Plan> plans;
    for (const int rows : {128, 64}) {
      for (const int width : {64, 128, 256}) {
        if (rows == 64 && width == 256) continue;
        for (const int slices : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) {
          if (slices > std::min(k_blocks, sms) || !lab11::WorkUnits::slices_fit(k_blocks, slices))
            continue;
          std::function<void()> call;
          if (rows == 128 && width == 64)
            call = [&, slices] { lab11::run_specialized<64>(args_of(), slices, stream); };
          if (rows == 128 && width == 128)
            call = [&, slices] { lab11::run_specialized<128>(args_of(), slices, stream); };
          if (rows == 128 && width == 256)
            call = [&, slices] { lab11::run_specialized<256>(args_of(), slices, stream); };
          if (rows == 64 && width == 64)
            call = [&, slices] { lab11::run_specialized<64, 64>(args_of(), slices, stream); };
          if (rows == 64 && width == 128)
            call = [&, slices] { lab11::run_specialized<128, 64>(args_of(), slices, stream); };
          plans.push_back(
              {(rows == 64 ? "r64w" : "w") + std::to_string(width) + "_s" + std::to_string(slices),
               lab11::predicted_specialized_us(shape, width, slices, sms, rows), call});
        }
      }
    }
    const lab11::SpecializedPlan best_plan = lab11::plan_best(shape, sms);
    plans.push_back(
        {"best", best_plan.predicted_us, [&] { lab11::launch_best(args_of(), stream); }});
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
    std::printf("%d %d %d best_is %s (sets %d, repeats %d)\n", m, n, k,
                best_plan.describe().c_str(), sets, repeats);
    std::fflush(stdout);
    for (cudaGraphExec_t exec : execs) CK(cudaGraphExecDestroy(exec));
  }
  CK(cudaStreamDestroy(stream));
  return 0;
}
