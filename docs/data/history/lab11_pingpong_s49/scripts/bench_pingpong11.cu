// Issue 53, session 49: lab 11's warp-specialized kernel against two ways of overlapping a tile's
// stores with the tensor cores' next work (pingpong11.cuh), `best` and cuBLAS BF16, in one process,
// at shapes given on the command line (tightly packed: lda = K, ldb = ldc = N). Built with
// -DBENCH_CSTORE (bench_cstore11), the runs are instead the solution's kernel and its copy with
// C stored in windows that begin on sectors where C's rows are off 16 bytes (sector_store11.cuh).
//
//   bench_pingpong11 MxNxK [MxNxK ...]
//
// Per shape one line "pingpong SHAPE" ("cstore SHAPE") then NAME US for each run, then
// worst_rel_l2: every run's C checked against cuBLAS's (C poisoned first), GPU time a launch
// (batches of about half a millisecond between two events, 9 interleaved rounds, the first 2 not
// counted, medians).
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"
#include "pingpong11.cuh"

#include <string>

namespace {

std::function<void()> times(int count, std::function<void()> call) {
  return [=] {
    for (int r = 0; r < count; ++r) call();
  };
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
  int failures = 0;
  using lab11::run_pingpong;
  for (int i = 1; i < argc; ++i) {
    int m = 0, n = 0, k = 0;
    if (!bench::parse_shape(argv[i], m, n, k)) return 1;
    bench::Problem problem(m, n, k, rng, stream);
    problem.compute_reference(cublas);
    const cudalabs::Bf16GemmArgs args = problem.args, reference = problem.reference;
    const std::vector<std::pair<const char*, std::function<void()>>> runs = {
#ifdef BENCH_CSTORE
        {"coop256", [=] { lab11::run_specialized<256, 128>(args, 1, stream); }},
        {"coop256_copy", [=] { run_pingpong<256, 1, 4, false, 0>(args, stream); }},
        {"coop256_sectors", [=] { run_pingpong<256, 1, 4, false, 0, true>(args, stream); }},
        {"coop128", [=] { lab11::run_specialized<128, 128>(args, 1, stream); }},
        {"coop128_sectors", [=] { run_pingpong<128, 1, 4, false, 0, true>(args, stream); }},
        {"tile64x128", [=] { lab11::run_specialized<128, 64>(args, 1, stream); }},
#else
        {"coop256", [=] { lab11::run_specialized<256, 128>(args, 1, stream); }},
        {"coop128", [=] { lab11::run_specialized<128, 128>(args, 1, stream); }},
        {"coop256_w0", [=] { run_pingpong<256, 1, 4, false, 0>(args, stream); }},
        {"coop256_w1", [=] { run_pingpong<256, 1, 4, false, 1>(args, stream); }},
        {"pp128x128_w1", [=] { run_pingpong<128, 2, 6, true, 1>(args, stream); }},
        {"pp128x128_w0", [=] { run_pingpong<128, 2, 6, true, 0>(args, stream); }},
        {"pp64x256_w1", [=] { run_pingpong<256, 1, 5, true, 1>(args, stream); }},
#endif
        {"best", [=] { lab11::launch_best(args, stream); }},
        {"cublas",
         [=, &cublas] { cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream); }},
    };
    const double tolerance = 4.0 * std::sqrt(static_cast<double>(k)) * std::ldexp(1.0, -24);
    double worst = 0.0;
    for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
      const double error = problem.rel_l2_of(runs[r].second);
      CK(cudaGetLastError());
      if (!(error <= tolerance)) {
        ++failures;
        std::printf("FAIL %s %s rel_l2 %.3e\n", argv[i], runs[r].first, error);
      }
      worst = std::max(worst, error);
    }
    runs[0].second();
    const double one_ms = bench::elapsed_ms(stream, runs[0].second);
    const int count = std::clamp(static_cast<int>(0.5 / std::max(one_ms, 1e-3)), 3, 100);
    std::vector<std::function<void()>> calls;
    for (const auto& run : runs) calls.push_back(times(count, run.second));
    const std::vector<double> us = bench::interleaved_us(stream, calls, count);
#ifdef BENCH_CSTORE
    std::printf("cstore %s", argv[i]);
#else
    std::printf("pingpong %s", argv[i]);
#endif
    for (std::size_t r = 0; r < runs.size(); ++r) std::printf(" %s %.2f", runs[r].first, us[r]);
    std::printf(" worst_rel_l2 %.2e | %s\n", worst,
                lab11::planned_best(args.shape()).describe().c_str());
    std::fflush(stdout);
  }
  CK(cudaStreamDestroy(stream));
  if (failures) std::fprintf(stderr, "%d runs differ from cuBLAS\n", failures);
  return failures ? 3 : 0;
}
