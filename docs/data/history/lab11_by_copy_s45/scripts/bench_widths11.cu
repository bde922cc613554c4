// Lab 11's warp-specialized kernel with K whole on every tile `best` weighs (128 rows x 64, 128 or
// 256 columns; 64 rows x 64 or 128), its operands copied only where TMA cannot read them or onto
// 128-byte lines both (launch.cuh: OnLines), against `best` and cuBLAS BF16, in one process, at
// shapes given on the command line (tightly packed: lda = K, ldb = ldc = N): what each width costs,
// for the width `best` picks (best_width.h) to be checked against.
//
//   bench_widths11 MxNxK [MxNxK ...]
//
// Per shape, a line "widths SHAPE" then, for each tile, "ROWSxWIDTH NEEDED_US LINES_US", then
// "best US cublas US worst_rel_l2 E | PLAN": every run's C checked against cuBLAS's (C poisoned
// first), GPU time a launch (batches of about half a millisecond between two events), 9
// interleaved rounds, the first 2 not counted, medians.
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"

#include <string>

namespace {

int failures = 0;

// `count` runs of `call` back to back.
std::function<void()> times(int count, std::function<void()> call) {
  return [=] {
    for (int r = 0; r < count; ++r) call();
  };
}

template <int kWidth, int kRows>
std::function<void()> tile_run(const cudalabs::Bf16GemmArgs& args, bool lines,
                               cudaStream_t stream) {
  const bool copy_a = !cudalabs::rows_allow_16_byte_loads(args.a, args.lda);
  const bool copy_b = !cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
  const lab11::OnLines on{copy_a || lines, copy_b || lines};
  return [=] { lab11::run_specialized<kWidth, kRows>(args, 1, stream, on); };
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MxNxK [MxNxK ...]\n", argv[0]);
    return 1;
  }
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudalabs::CublasHandle cublas;
  std::mt19937 rng(20261207);
  const char* tiles[] = {"128x64", "128x128", "128x256", "64x64", "64x128"};
  for (int i = 1; i < argc; ++i) {
    int m = 0, n = 0, k = 0;
    if (!bench::parse_shape(argv[i], m, n, k)) return 1;
    bench::Problem problem(m, n, k, rng, stream);
    problem.compute_reference(cublas);
    const cudalabs::Bf16GemmArgs args = problem.args, reference = problem.reference;
    std::vector<std::function<void()>> runs;
    for (const bool lines : {false, true}) {
      runs.push_back(tile_run<64, 128>(args, lines, stream));
      runs.push_back(tile_run<128, 128>(args, lines, stream));
      runs.push_back(tile_run<256, 128>(args, lines, stream));
      runs.push_back(tile_run<64, 64>(args, lines, stream));
      runs.push_back(tile_run<128, 64>(args, lines, stream));
    }
    runs.push_back([=] { lab11::launch_best(args, stream); });
    runs.push_back(
        [=, &cublas] { cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream); });
    const double tolerance = 4.0 * std::sqrt(static_cast<double>(k)) * std::ldexp(1.0, -24);
    double worst = 0.0;
    for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
      const double error = problem.rel_l2_of(runs[r]);
      CK(cudaGetLastError());
      if (!(error <= tolerance)) ++failures;
      worst = std::max(worst, error);
    }
    runs[runs.size() - 2]();
    const double one_ms = bench::elapsed_ms(stream, runs[runs.size() - 2]);
    const int count = std::clamp(static_cast<int>(0.5 / std::max(one_ms, 1e-3)), 3, 100);
    std::vector<std::function<void()>> calls;
    for (const auto& run : runs) calls.push_back(times(count, run));
    const std::vector<double> us = bench::interleaved_us(stream, calls, count);
    std::printf("widths %s", argv[i]);
    for (int t = 0; t < 5; ++t) std::printf(" %s %.2f %.2f", tiles[t], us[t], us[5 + t]);
    std::printf(" best %.2f cublas %.2f worst_rel_l2 %.2e | %s\n", us[10], us[11], worst,
                lab11::planned_best(args.shape()).describe().c_str());
    std::fflush(stdout);
  }
  CK(cudaStreamDestroy(stream));
  if (failures) std::fprintf(stderr, "%d runs differ from cuBLAS\n", failures);
  return failures ? 3 : 0;
}
