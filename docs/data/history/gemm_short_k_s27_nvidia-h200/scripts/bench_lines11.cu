// Lab 11's warp-specialized kernel with its operands as they are, A copied onto 128-byte lines, B,
// and both (launch.cuh: OnLines), at the width and slices `best` plans, against `best` and cuBLAS
// BF16, in one process, at shapes given on the command line (tightly packed: lda = K, ldb = N).
//
//   bench_lines11 MxNxK [MxNxK ...]
//
// Per shape: each call's result checked against cuBLAS (C poisoned first; the worst relative L2
// difference printed), then the time a call from the host (R calls between two events), rounds
// interleaved, medians of 7.
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
  std::mt19937 rng(20261203);
  std::printf(
      "m n k width slices a_on b_on predicted_us as_is_us a_lines_us b_lines_us both_us best_us "
      "cublas_us worst_rel_l2\n");
  for (int i = 1; i < argc; ++i) {
    int m = 0, n = 0, k = 0;
    if (!bench::parse_shape(argv[i], m, n, k)) return 1;
    bench::Problem problem(m, n, k, rng, stream);
    const cudalabs::Bf16GemmArgs& args = problem.args;
    const lab11::SpecializedPlan plan = lab11::planned_best(args.shape());
    const auto forced = [&](lab11::OnLines lines) {
      switch (plan.width) {
        case 64:
          return lab11::run_specialized<64>(args, plan.slices, stream, lines);
        case 128:
          return lab11::run_specialized<128>(args, plan.slices, stream, lines);
        default:
          return lab11::run_specialized<256>(args, plan.slices, stream, lines);
      }
    };
    const std::vector<std::function<void()>> calls = {
        [&] {
          forced({false, false});
        },
        [&] {
          forced({true, false});
        },
        [&] {
          forced({false, true});
        },
        [&] {
          forced({true, true});
        },
        [&] { lab11::launch_best(args, stream); },
        [&] { cudalabs::cublas_gemm_bf16_row_major(cublas, problem.reference, stream); }};
    problem.compute_reference(cublas);
    double worst = 0;
    for (int w = 0; w < 5; ++w) worst = std::max(worst, problem.rel_l2_of(calls[w]));  // ours
    const double one_ms = bench::elapsed_ms(stream, calls[0]);
    const int repeats = std::clamp(static_cast<int>(2.0 / std::max(one_ms, 1e-3)), 3, 200);
    std::vector<std::function<void()>> repeated;
    for (const auto& call : calls)
      repeated.push_back([&, call] {
        for (int r = 0; r < repeats; ++r) call();
      });
    const std::vector<double> us = bench::interleaved_us(stream, repeated, repeats);
    const bool a_on = lab11::rows_on_lines(args.a, k), b_on = lab11::rows_on_lines(args.b, n);
    std::printf("%d %d %d %d %d %d %d %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.2e\n", m, n, k,
                plan.width, plan.slices, a_on, b_on, plan.predicted_us, us[0], us[1], us[2], us[3],
                us[4], us[5], worst);
    std::fflush(stdout);
  }
  CK(cudaStreamDestroy(stream));
  return 0;
}
