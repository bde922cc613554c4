// Lab 11's short-K kernel (short_k.cuh, run_short_k with its plan) at shapes and layouts given on
// the command line, beside `best` and cuBLAS BF16, in one process. Session 46's copy of session
// 36's bench (lab11_short_k_words_s36_nvidia-h200), for the launch of today's tree; built with
// LAB11_SHORT_K_CHUNK 32 and 64, the same program times both chunk lengths. Shapes the short-K
// kernel has no plan for print `no_plan`.
//
//   bench_short_k11 MxNxK[+PA,PB,PC,OFF] ...
//
// PA, PB, PC: elements added to lda, ldb and ldc (lda = K + PA, ...); OFF: elements between each
// allocation's start and its matrix (OFF 1 leaves BF16 rows 2-byte aligned, OFF 2 4-byte). Per
// shape: C (poisoned first) from run_short_k against cuBLAS's on the same operands (relative L2
// difference), then the GPU time a launch of run_short_k, `best` and cuBLAS: each side's R
// launches captured in a CUDA graph, the graphs replayed in turn, medians of 7 rounds
// (bench_support.cuh). Operands stay warm in L2.
// One line a shape: label a_bytes b_bytes slices short_us best_us cublas_us rel_l2 (a_bytes and
// b_bytes: the widest loads the rows allow, common/row_alignment.h; slices: the short-K plan's).
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"

namespace {

// A GEMM of random BF16 operands in -1..1, laid out with padded rows and offset pointers.
struct LaidOut {
  int m = 0, n = 0, k = 0, pa = 0, pb = 0, pc = 0, off = 0;
  __nv_bfloat16 *a = nullptr, *b = nullptr;
  float *c = nullptr, *ref = nullptr;
  std::size_t c_count = 0;

  cudalabs::Bf16GemmArgs args(float* into) const {
    return {m, n, k, 1.0f, a + off, k + pa, b + off, n + pb, 0.0f, into + off, n + pc};
  }
};

bool parse(const char* text, LaidOut& g) {
  const int read =
      std::sscanf(text, "%dx%dx%d+%d,%d,%d,%d", &g.m, &g.n, &g.k, &g.pa, &g.pb, &g.pc, &g.off);
  if ((read == 3 || read == 7) && g.m >= 1 && g.n >= 1 && g.k >= 1 && g.pa >= 0 && g.pb >= 0 &&
      g.pc >= 0 && g.off >= 0)
    return true;
  std::fprintf(stderr, "bad shape '%s'\n", text);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MxNxK[+PA,PB,PC,OFF] ...\n", argv[0]);
    return 1;
  }
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudalabs::CublasHandle cublas;
  std::mt19937 rng(20261204);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::printf("label a_bytes b_bytes slices short_us best_us cublas_us rel_l2\n");
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    LaidOut g;
    if (!parse(argv[i], g)) return 1;
    const std::size_t a_count = static_cast<std::size_t>(g.m) * (g.k + g.pa) + g.off;
    const std::size_t b_count = static_cast<std::size_t>(g.k) * (g.n + g.pb) + g.off;
    g.c_count = static_cast<std::size_t>(g.m) * (g.n + g.pc) + g.off;
    std::vector<__nv_bfloat16> a(a_count), b(b_count);
    for (auto& x : a) x = __float2bfloat16(uniform(rng));
    for (auto& x : b) x = __float2bfloat16(uniform(rng));
    CK(cudaMalloc(&g.a, a_count * 2));
    CK(cudaMalloc(&g.b, b_count * 2));
    CK(cudaMalloc(&g.c, g.c_count * 4));
    CK(cudaMalloc(&g.ref, g.c_count * 4));
    CK(cudaMemcpy(g.a, a.data(), a_count * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.b, b.data(), b_count * 2, cudaMemcpyHostToDevice));
    const cudalabs::Bf16GemmArgs args = g.args(g.c), reference = g.args(g.ref);
    const lab11::ShortKPlan plan = lab11::planned_short_k(args);
    if (plan.slices == 0) {
      std::printf("%s no_plan\n", argv[i]);
      for (void* p : {static_cast<void*>(g.a), static_cast<void*>(g.b), static_cast<void*>(g.c),
                      static_cast<void*>(g.ref)})
        CK(cudaFree(p));
      continue;
    }

    // The check: both Cs poisoned, compared over C's rows (padding left out).
    CK(cudaMemset(g.ref, 0xff, g.c_count * 4));
    CK(cudaMemset(g.c, 0xff, g.c_count * 4));
    cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream);
    lab11::run_short_k(args, plan, stream);
    CK(cudaStreamSynchronize(stream));
    CK(cudaGetLastError());
    std::vector<float> ours(g.c_count), theirs(g.c_count);
    CK(cudaMemcpy(ours.data(), g.c, g.c_count * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(theirs.data(), g.ref, g.c_count * 4, cudaMemcpyDeviceToHost));
    double diff = 0, norm = 0;
    for (int r = 0; r < g.m; ++r)
      for (int j = 0; j < g.n; ++j) {
        const std::size_t at = g.off + static_cast<std::size_t>(r) * (g.n + g.pc) + j;
        const double d = static_cast<double>(ours[at]) - theirs[at];
        diff += d * d;
        norm += static_cast<double>(theirs[at]) * theirs[at];
      }
    const double rel_l2 = std::isfinite(diff) ? std::sqrt(diff / norm) : INFINITY;
    if (!(rel_l2 < 1e-5)) ++failures;

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
    cudaGraphExec_t graphs[3] = {captured([&] { lab11::run_short_k(args, plan, stream); }),
                                 captured([&] { lab11::launch_best(args, stream); }), captured([&] {
                                   cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream);
                                 })};
    const std::vector<double> us =
        bench::interleaved_us(stream,
                              {[&] { CK(cudaGraphLaunch(graphs[0], stream)); },
                               [&] { CK(cudaGraphLaunch(graphs[1], stream)); },
                               [&] { CK(cudaGraphLaunch(graphs[2], stream)); }},
                              repeats);
    std::printf("%s %d %d %d %.2f %.2f %.2f %.2e\n", argv[i],
                cudalabs::widest_row_load_bytes(args.a, args.lda),
                cudalabs::widest_row_load_bytes(args.b, args.ldb), plan.slices, us[0], us[1], us[2],
                rel_l2);
    std::fflush(stdout);
    for (cudaGraphExec_t exec : graphs) CK(cudaGraphExecDestroy(exec));
    CK(cudaFree(g.a));
    CK(cudaFree(g.b));
    CK(cudaFree(g.c));
    CK(cudaFree(g.ref));
  }
  CK(cudaStreamDestroy(stream));
  if (failures) std::fprintf(stderr, "%d shapes differ from cuBLAS\n", failures);
  return failures ? 3 : 0;
}
