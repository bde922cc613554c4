// Lab 11's few-rows kernel (few_rows.cuh, run_few_rows) at shapes and layouts given on the command
// line: K whole where a block holds it, and up to eight counts of slices from the fewest to the
// most the planner weighs (its own pick among them), beside the path `best` takes without it (the
// short-K kernel, the wgmma rung, or the warp-specialized kernel after the copies TMA needs),
// `best` and cuBLAS BF16, in one process.
//
//   bench_few_rows11 MxNxK[+PA,PB,PC,OFF] ...
//
// PA, PB, PC: elements added to lda, ldb and ldc; OFF: elements between each allocation's start and
// its matrix (OFF 1: BF16 rows 2-byte aligned). Per shape and plan: C (poisoned first) against
// cuBLAS's on the same operands (relative L2 difference, at most 4 sqrt(K) 2^-24), then GPU times
// a launch (CUDA graphs of R launches, replayed; 9 rounds interleaved, the first 2 not counted,
// medians) of every plan, of the other path, of `best` and of cuBLAS.
// Lines: "plan label slices slice_k graph_us predicted_us rel_l2", then per shape "best label
// best_graph_us other_graph_us cublas_graph_us takes_few_rows chosen_slices other_predicted_us
// rel_l2_best rel_l2_other".
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"

namespace {

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

double relative_l2(const LaidOut& g, const std::vector<float>& ours,
                   const std::vector<float>& theirs) {
  double diff = 0, norm = 0;
  for (int r = 0; r < g.m; ++r)
    for (int j = 0; j < g.n; ++j) {
      const std::size_t at = g.off + static_cast<std::size_t>(r) * (g.n + g.pc) + j;
      const double d = static_cast<double>(ours[at]) - theirs[at];
      diff += d * d;
      norm += static_cast<double>(theirs[at]) * theirs[at];
    }
  return std::isfinite(diff) ? std::sqrt(diff / norm) : INFINITY;
}

// Random BF16 values in -1 .. 1 from a hash of the index (fast for a B of hundreds of MB).
void fill(std::vector<__nv_bfloat16>& values, unsigned seed) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    values[i] = __float2bfloat16(static_cast<float>(x % 2001u) / 1000.0f - 1.0f);
  }
}

// What launch_best runs where the few-rows kernel does not.
void other_path(const cudalabs::Bf16GemmArgs& args, cudaStream_t stream) {
  lab11::run_short_k_or_tiles(args, lab11::planned_best(args.shape()), stream);
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
  const int sms = cudalabs::multiprocessor_count();
  for (const int rows : {2, 4, 8}) {
    cudaFuncAttributes at{};
    CK(cudaFuncGetAttributes(&at, reinterpret_cast<const void*>(lab11::few_rows_kernel_for(rows))));
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, reinterpret_cast<const void*>(lab11::few_rows_kernel_for(rows)),
        lab11::kFewRowsThreads, 0));
    std::printf(
        "# kernel rows %d: %d registers, %zu bytes local, %zu bytes shared, %d blocks an SM\n",
        rows, at.numRegs, at.localSizeBytes, at.sharedSizeBytes, blocks);
  }
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    LaidOut g;
    if (!parse(argv[i], g)) return 1;
    const std::size_t a_count = static_cast<std::size_t>(g.m) * (g.k + g.pa) + g.off;
    const std::size_t b_count = static_cast<std::size_t>(g.k) * (g.n + g.pb) + g.off;
    g.c_count = static_cast<std::size_t>(g.m) * (g.n + g.pc) + g.off;
    std::vector<__nv_bfloat16> a(a_count), b(b_count);
    fill(a, 17u + i);
    fill(b, 1000003u * i);
    CK(cudaMalloc(&g.a, a_count * 2));
    CK(cudaMalloc(&g.b, b_count * 2));
    CK(cudaMalloc(&g.c, g.c_count * 4));
    CK(cudaMalloc(&g.ref, g.c_count * 4));
    CK(cudaMemcpy(g.a, a.data(), a_count * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.b, b.data(), b_count * 2, cudaMemcpyHostToDevice));
    const cudalabs::Bf16GemmArgs args = g.args(g.c), reference = g.args(g.ref);
    CK(cudaMemset(g.ref, 0xff, g.c_count * 4));
    cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream);
    CK(cudaStreamSynchronize(stream));
    std::vector<float> theirs(g.c_count), ours(g.c_count);
    CK(cudaMemcpy(theirs.data(), g.ref, g.c_count * 4, cudaMemcpyDeviceToHost));

    // The plans: K whole where a block holds it, then up to eight counts of slices spread from the
    // fewest to the most plan_few_rows weighs, and its pick.
    const lab11::FewRowsPlan pick = lab11::plan_few_rows(args.shape(), sms);
    const int at_once = lab11::few_rows_blocks_per_sm(lab11::few_rows_kernel_rows(g.m));
    const int least = cudalabs::ceil_div(g.k, lab11::kFewRowsMaxSliceK);
    const int most = std::min(
        cudalabs::ceil_div(g.k, 8),
        least + cudalabs::ceil_div(4 * at_once * sms, lab11::few_rows_col_blocks(args.shape())));
    std::vector<int> counts;
    for (int j = 0; j < 8; ++j) {
      const double t = j / 7.0;
      counts.push_back(static_cast<int>(std::lround(least * std::pow(1.0 * most / least, t))));
    }
    counts.push_back(pick.slices);
    std::vector<lab11::FewRowsPlan> plans;
    for (const int count : counts) {
      const int slice_k = (cudalabs::ceil_div(g.k, count) + 7) / 8 * 8;
      if (slice_k > lab11::kFewRowsMaxSliceK) continue;
      const lab11::FewRowsPlan plan{cudalabs::ceil_div(g.k, slice_k), slice_k,
                                    lab11::predicted_few_rows_us(args.shape(), slice_k, sms)};
      bool seen = false;
      for (const auto& p : plans) seen = seen || p.slice_k == plan.slice_k;
      if (!seen) plans.push_back(plan);
    }
    const double tolerance = 4.0 * std::sqrt(static_cast<double>(g.k)) * std::ldexp(1.0, -24);
    const auto error_of = [&](const std::function<void()>& run) {
      CK(cudaMemset(g.c, 0xff, g.c_count * 4));
      run();
      CK(cudaStreamSynchronize(stream));
      CK(cudaGetLastError());
      CK(cudaMemcpy(ours.data(), g.c, g.c_count * 4, cudaMemcpyDeviceToHost));
      const double error = relative_l2(g, ours, theirs);
      if (!(error < tolerance)) ++failures;
      return error;
    };
    std::vector<double> errors;
    for (const auto& plan : plans)
      errors.push_back(error_of([&] { lab11::run_few_rows(args, plan, stream); }));
    const double best_error = error_of([&] { lab11::launch_best(args, stream); });
    const double other_error = error_of([&] { other_path(args, stream); });

    const double one_ms = bench::elapsed_ms(stream, [&] { lab11::launch_best(args, stream); });
    const int repeats = std::clamp(static_cast<int>(0.5 / std::max(one_ms, 1e-3)), 3, 100);
    std::vector<cudaGraphExec_t> execs;
    const auto capture = [&](const std::function<void()>& call) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (int r = 0; r < repeats; ++r) call();
      CK(cudaStreamEndCapture(stream, &graph));
      CK(cudaGraphInstantiate(&exec, graph, 0));
      CK(cudaGraphDestroy(graph));
      execs.push_back(exec);
    };
    for (const auto& plan : plans) capture([&] { lab11::run_few_rows(args, plan, stream); });
    capture([&] { lab11::launch_best(args, stream); });
    capture([&] { other_path(args, stream); });
    capture([&] { cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream); });
    std::vector<std::function<void()>> calls;
    for (const cudaGraphExec_t exec : execs)
      calls.push_back([&, exec] { CK(cudaGraphLaunch(exec, stream)); });
    const std::vector<double> us = bench::interleaved_us(stream, calls, repeats);
    for (std::size_t p = 0; p < plans.size(); ++p)
      std::printf("plan %s %d %d %.2f %.2f %.2e\n", argv[i], plans[p].slices, plans[p].slice_k,
                  us[p], plans[p].predicted_us, errors[p]);
    const std::size_t at = plans.size();
    const lab11::SpecializedPlan& plan = lab11::planned_best(args.shape());
    const bool copy_a = !cudalabs::rows_allow_16_byte_loads(args.a, args.lda);
    const bool copy_b = !cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
    const lab11::ShortKPlan& short_k = lab11::planned_short_k(args);
    const bool few =
        lab11::few_rows_fit(args.shape()) &&
        lab11::few_rows_pays(args.shape(), plan, pick, short_k, lab11::short_k_copies(args), sms);
    double other_us = lab11::tma_path_us(args.shape(), plan, copy_a, copy_b, sms);
    if (lab11::short_k_pays(args.shape(), plan, short_k, lab11::short_k_copies(args), sms))
      other_us = short_k.predicted_us;
    std::printf("best %s %.2f %.2f %.2f %d %d %.2f %.2e %.2e\n", argv[i], us[at], us[at + 1],
                us[at + 2], few, pick.slices, other_us, best_error, other_error);
    std::fflush(stdout);
    for (const cudaGraphExec_t exec : execs) CK(cudaGraphExecDestroy(exec));
    CK(cudaFree(g.a));
    CK(cudaFree(g.b));
    CK(cudaFree(g.c));
    CK(cudaFree(g.ref));
  }
  CK(cudaStreamDestroy(stream));
  if (failures) std::fprintf(stderr, "%d runs differ from cuBLAS\n", failures);
  return failures ? 3 : 0;
}
