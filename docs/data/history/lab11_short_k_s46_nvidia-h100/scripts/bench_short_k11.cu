// Lab 11's short-K kernel (short_k.cuh, run_short_k with its plan) at shapes and layouts given on
// the command line, beside `best` and cuBLAS BF16, in one process: session 36's bench
// (lab11_short_k_words_s36_nvidia-h200) for today's launch. pack.sh builds it three ways (chunks of
// 32 and 64 values of K, LAB11_SHORT_K_CHUNK; 4 buffers with K whole, LAB11_SHORT_K_WHOLE_STAGES).
// Shapes the short-K kernel has no plan for print `no_plan`. Session 47 added whole_us: where the
// plan slices K, the same kernel with K whole (kShortKWholeStages buffers, no cluster), checked
// too; `-` where the plan takes K whole.
//
//   bench_short_k11 MxNxK[+PA,PB,PC,OFF] ...
//
// The layouts: laid_out_gemm.cuh (session 27's scripts, beside bench_support.cuh). Per shape: C
// (poisoned first) from run_short_k against cuBLAS's on the same operands (relative L2 difference),
// then the GPU time a launch of run_short_k, `best`, cuBLAS and K whole: each side's R launches
// captured in a CUDA graph, the graphs replayed in turn, medians of 7 rounds (bench_support.cuh).
// Operands stay warm in L2. One line a shape: label a_bytes b_bytes slices short_us best_us
// cublas_us rel_l2 whole_us (a_bytes and b_bytes: the widest loads the rows allow,
// common/row_alignment.h; slices: the short-K plan's).
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"
#include "laid_out_gemm.cuh"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MxNxK[+PA,PB,PC,OFF] ...\n", argv[0]);
    return 1;
  }
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudalabs::CublasHandle cublas;
  std::mt19937 rng(20261204);
  std::printf("label a_bytes b_bytes slices short_us best_us cublas_us rel_l2 whole_us\n");
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    bench::LaidOutGemm g;
    if (!g.parse(argv[i])) return 1;
    g.allocate(rng);
    const cudalabs::Bf16GemmArgs args = g.args(g.c), reference = g.args(g.ref);
    const lab11::ShortKPlan plan = lab11::planned_short_k(args);
    if (plan.slices == 0) {
      std::printf("%s no_plan\n", argv[i]);
      g.release();
      continue;
    }
    const double rel_l2 =
        g.rel_l2_after([&] { lab11::run_short_k(args, plan, stream); }, cublas, stream);
    if (!(rel_l2 < 1e-5)) ++failures;
    const lab11::ShortKPlan whole{1, args.k, 0.0};
    if (plan.sliced() &&
        !(g.rel_l2_after([&] { lab11::run_short_k(args, whole, stream); }, cublas, stream) < 1e-5))
      ++failures;

    // GPU time a launch: each side's repeats captured in a graph, the graphs replayed in turn.
    const double one_ms = bench::elapsed_ms(stream, [&] { lab11::launch_best(args, stream); });
    const int repeats = std::clamp(static_cast<int>(1.0 / std::max(one_ms, 1e-3)), 5, 200);
    const auto captured = [&](auto call) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (int r = 0; r < repeats; ++r) call();
      CK(cudaStreamEndCapture(stream, &graph));
      CK(cudaGraphInstantiate(&exec, graph, 0));
      CK(cudaGraphDestroy(graph));
      return exec;
    };
    // K whole: the sliced plan's own graph again where the plan takes K whole (not printed).
    const lab11::ShortKPlan& fourth = plan.sliced() ? whole : plan;
    cudaGraphExec_t graphs[4] = {captured([&] { lab11::run_short_k(args, plan, stream); }),
                                 captured([&] { lab11::launch_best(args, stream); }), captured([&] {
                                   cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream);
                                 }),
                                 captured([&] { lab11::run_short_k(args, fourth, stream); })};
    const std::vector<double> us =
        bench::interleaved_us(stream,
                              {[&] { CK(cudaGraphLaunch(graphs[0], stream)); },
                               [&] { CK(cudaGraphLaunch(graphs[1], stream)); },
                               [&] { CK(cudaGraphLaunch(graphs[2], stream)); },
                               [&] { CK(cudaGraphLaunch(graphs[3], stream)); }},
                              repeats);
    char whole_us[32] = "-";
    if (plan.sliced()) std::snprintf(whole_us, sizeof whole_us, "%.2f", us[3]);
    std::printf("%s %d %d %d %.2f %.2f %.2f %.2e %s\n", argv[i],
                cudalabs::widest_row_load_bytes(args.a, args.lda),
                cudalabs::widest_row_load_bytes(args.b, args.ldb), plan.slices, us[0], us[1], us[2],
                rel_l2, whole_us);
    std::fflush(stdout);
    for (cudaGraphExec_t exec : graphs) CK(cudaGraphExecDestroy(exec));
    g.release();
  }
  CK(cudaStreamDestroy(stream));
  if (failures) std::fprintf(stderr, "%d shapes differ from cuBLAS\n", failures);
  return failures ? 3 : 0;
}
