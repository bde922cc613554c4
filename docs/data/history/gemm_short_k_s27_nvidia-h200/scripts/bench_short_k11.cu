// Lab 11's short-K kernel (short_k.cuh) timed at shapes given on the command line, against its
// model (best_plan.h: predicted_short_k_us), lab 11's `best` and cuBLAS BF16, in one process.
//
//   bench_short_k11 MxNxK [MxNxK ...]
//
// Operands tightly packed (lda = K, ldb = N, ldc = N), so that A's rows are 16-byte aligned when K
// is a multiple of 8 and B's when N is. Per shape: the short-K kernel's GPU time a launch (a CUDA
// graph of R launches, replayed), then the time a call of each of short-K, `best` and cuBLAS from
// the host (R calls between two events), rounds interleaved, medians of 7. The short-K kernel's C
// is checked against cuBLAS's (C poisoned first): relative L2 difference.
// One line a shape: m n k vector_a vector_b model_us graph_us short_us best_us cublas_us rel_l2.
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"

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
  std::printf("m n k vector_a vector_b model_us graph_us short_us best_us cublas_us rel_l2\n");
  for (int i = 1; i < argc; ++i) {
    int m = 0, n = 0, k = 0;
    if (!bench::parse_shape(argv[i], m, n, k)) return 1;
    bench::Problem problem(m, n, k, rng, stream);
    const cudalabs::Bf16GemmArgs& args = problem.args;
    const bool vector_a = cudalabs::rows_allow_16_byte_loads(args.a, k);
    const bool vector_b = cudalabs::rows_allow_16_byte_loads(args.b, n);
    problem.compute_reference(cublas);
    const double rel_l2 = problem.rel_l2_of([&] { lab11::run_short_k(args, stream); });

    // Launches a measurement repeats: about a millisecond of the short-K kernel.
    const double one_ms = bench::elapsed_ms(stream, [&] { lab11::run_short_k(args, stream); });
    const int repeats = std::clamp(static_cast<int>(1.0 / std::max(one_ms, 1e-3)), 5, 200);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int r = 0; r < repeats; ++r) lab11::run_short_k(args, stream);
    CK(cudaStreamEndCapture(stream, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    const auto repeated = [&](auto call) {
      return [&, call] {
        for (int r = 0; r < repeats; ++r) call();
      };
    };
    const std::vector<double> us = bench::interleaved_us(
        stream,
        {[&] { CK(cudaGraphLaunch(exec, stream)); },
         repeated([&] { lab11::run_short_k(args, stream); }),
         repeated([&] { lab11::launch_best(args, stream); }), repeated([&] {
           cudalabs::cublas_gemm_bf16_row_major(cublas, problem.reference, stream);
         })},
        repeats);
    const double model = lab11::predicted_short_k_us({m, n, k}, vector_a, vector_b, sms);
    std::printf("%d %d %d %d %d %.2f %.2f %.2f %.2f %.2f %.2e\n", m, n, k, vector_a, vector_b,
                model, us[0], us[1], us[2], us[3], rel_l2);
    std::fflush(stdout);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
  }
  CK(cudaStreamDestroy(stream));
  return 0;
}
