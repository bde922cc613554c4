// Lab 11's warp-specialized kernel in pairs (clusters of two blocks on tiles one above the other,
// B's copies shared by TMA multicast) and with its tiles stored through the copy engine, against
// the same plan otherwise, at shapes given on the command line, one process, every C (poisoned
// first) checked against cuBLAS's (relative L2 at most 4 sqrt(K) 2^-24):
//
//   bench_pairs11 MxNxK ...
//
// At each shape, `best`'s plan of the warp-specialized kernel (planned_best), run as `best` runs it
// (run_specialized: operands copied where TMA cannot read them or the plan copies them onto
// lines, C stored by copy where C allows), a block at a time and in pairs; where the plan keeps K
// whole and TMA reads the operands as they are, the kernel alone storing C by its own threads, by
// copy, not at all (its args say C has no rows, its tensor maps cover the real A and B: what the
// epilogue costs), and not at all in pairs; `best`; cuBLAS. GPU time a launch (batches of about
// half a millisecond between two events), 9 interleaved rounds, the first 2 not counted, medians.
// Line: "pairs SHAPE PLAN_US PLAN_PAIRED_US OWN_STORES_US BY_COPY_US NO_STORES_US
// NO_STORES_PAIRED_US BEST_US CUBLAS_US WORST_REL_L2 | PLAN | ..." (-1 where a run does not apply).
// Built with -DLAB11_SPECIALIZED_PAIRS=1 (the kernel takes pairs) and -DLAB11_PAIR_B_BY_ONE=0 (each
// block of a pair multicasts half of B's k-rows) or 1 (block 0 multicasts all of B).
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"

#include <string>

namespace {

int failures = 0;

double checked(bench::Problem& problem, double tolerance, const std::function<void()>& run) {
  const double error = problem.rel_l2_of(run);
  CK(cudaGetLastError());
  if (!(error <= tolerance)) ++failures;
  return error;
}

// `count` runs of `call` back to back.
std::function<void()> times(int count, std::function<void()> call) {
  return [=] {
    for (int r = 0; r < count; ++r) call();
  };
}

// Launches to a batch: about half a millisecond of `one`'s work, 3 to 100.
int batch_of(cudaStream_t stream, const std::function<void()>& one) {
  one();
  const double ms = bench::elapsed_ms(stream, one);
  return std::clamp(static_cast<int>(0.5 / std::max(ms, 1e-3)), 3, 100);
}

// The plan as `best` runs it: its operands copied as run_short_k_or_tiles copies them.
template <int kWidth, int kRows>
void run_plan(const cudalabs::Bf16GemmArgs& args, const lab11::SpecializedPlan& plan, bool pairs,
              cudaStream_t stream) {
  const bool copy_a = !cudalabs::rows_allow_16_byte_loads(args.a, args.lda);
  const bool copy_b = !cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
  const lab11::OnLines lines{copy_a || lab11::copy_a_to_lines_pays(args.shape(), plan),
                             copy_b || lab11::copy_b_to_lines_pays(args.shape(), plan)};
  lab11::run_specialized<kWidth, kRows>(args, plan.slices, stream, lines, plan.whole_tiles, pairs);
}

// The kernel alone with K whole on operands TMA reads as they are, its stores `by_copy` (through
// C's tensor map, where C allows it) or by its own threads; `stores` false: args say C has no
// rows, so no unit stores anything, while the maps cover the real A and B.
template <int kWidth, int kRows>
std::function<void()> kernel_alone(const cudalabs::Bf16GemmArgs& args, bool pairs, bool stores,
                                   bool by_copy, cudaStream_t stream) {
  const lab11::WorkUnits units = lab11::specialized_units<kWidth, kRows>(args.shape(), 1);
  const cudalabs::KernelLaunch config = lab11::specialized_launch<kWidth, kRows>(units, pairs);
  const CUtensorMap a_map = lab11::bf16_tensor_map(args.a, args.m, args.k, args.lda, kRows);
  const CUtensorMap b_map = lab11::bf16_tensor_map(args.b, args.k, args.n, args.ldb,
                                                   pairs && !LAB11_PAIR_B_BY_ONE ? 32 : 64);
  cudalabs::Bf16GemmArgs given = args;
  lab11::WorkUnits walked = units;
  const CUtensorMap c_map = lab11::c_map_for(args, units, walked.c_by_copy);
  walked.c_by_copy = walked.c_by_copy && by_copy;
  if (!stores) given.m = 0;
  return [=] {
    cudaLaunchConfig_t launch{};
    launch.gridDim = config.grid;
    launch.blockDim = config.block;
    launch.dynamicSmemBytes = config.dynamic_shared_bytes;
    launch.stream = stream;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim = {pairs ? 2u : 1u, 1, 1};
    launch.attrs = &cluster;
    launch.numAttrs = pairs ? 1 : 0;
    CK(cudaLaunchKernelEx(&launch, lab11::warp_specialized_kernel<kWidth, kRows>, given, a_map,
                          b_map, c_map, walked));
  };
}

template <int kWidth, int kRows>
void measure(bench::Problem& problem, const std::string& shape, cudaStream_t stream,
             const cudalabs::CublasHandle& cublas) {
  const cudalabs::Bf16GemmArgs args = problem.args;
  const lab11::SpecializedPlan plan = lab11::planned_best(args.shape());
  const bool pairs_fit = plan.units(args.shape()).pairs_fit(lab11::kSpecializedGroupRows);
  const bool tma_as_is = cudalabs::rows_allow_16_byte_loads(args.a, args.lda) &&
                         cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
  const double tolerance = 4.0 * std::sqrt(static_cast<double>(args.k)) * std::ldexp(1.0, -24);
  const bool alone = !plan.split() && tma_as_is;
  const auto when = [](bool run, std::function<void()> call) {
    return run ? call : std::function<void()>();
  };
  const cudalabs::Bf16GemmArgs reference = problem.reference;
  // what each column runs (nothing: -1)
  const std::vector<std::function<void()>> runs = {
      [=] { run_plan<kWidth, kRows>(args, plan, false, stream); },
      when(pairs_fit, [=] { run_plan<kWidth, kRows>(args, plan, true, stream); }),
      when(alone, kernel_alone<kWidth, kRows>(args, false, true, false, stream)),
      when(alone, kernel_alone<kWidth, kRows>(args, false, true, true, stream)),
      when(alone, kernel_alone<kWidth, kRows>(args, false, false, true, stream)),
      when(alone && pairs_fit, kernel_alone<kWidth, kRows>(args, true, false, true, stream)),
      [=] { lab11::launch_best(args, stream); },
      [=, &cublas] { cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream); }};
  double worst = 0.0;
  for (const std::size_t r : {0, 1, 2, 3, 6})  // the runs that store C
    if (runs[r]) worst = std::max(worst, checked(problem, tolerance, runs[r]));
  const int count = batch_of(stream, runs[0]);
  std::vector<std::function<void()>> calls;
  std::vector<std::size_t> timed;
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (runs[r]) {
      calls.push_back(times(count, runs[r]));
      timed.push_back(r);
    }
  const std::vector<double> us = bench::interleaved_us(stream, calls, count);
  std::vector<double> all(runs.size(), -1.0);
  for (std::size_t i = 0; i < timed.size(); ++i) all[timed[i]] = us[i];
  std::printf("pairs %s", shape.c_str());
  for (const double t : all) std::printf(" %.2f", t);
  std::printf(" %.2e | %s | %d pairs at once, %d stages, %d slots\n", worst,
              plan.describe().c_str(), lab11::specialized_pairs_at_once<kWidth, kRows>(),
              lab11::SpecializedTile<kWidth, kRows>::kStages,
              lab11::SpecializedTile<kWidth, kRows>::kEpilogueSlots);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MxNxK ...\n", argv[0]);
    return 1;
  }
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudalabs::CublasHandle cublas;
  std::mt19937 rng(20261206);
  for (int i = 1; i < argc; ++i) {
    int m, n, k;
    if (!bench::parse_shape(argv[i], m, n, k)) return 1;
    bench::Problem problem(m, n, k, rng, stream);
    problem.compute_reference(cublas);
    const lab11::SpecializedPlan plan = lab11::planned_best(problem.args.shape());
    lab11::on_plan_tile(plan, [&]<int kWidth, int kRows>() {
      measure<kWidth, kRows>(problem, argv[i], stream, cublas);
    });
  }
  CK(cudaStreamDestroy(stream));
  if (failures) std::fprintf(stderr, "%d runs differ from cuBLAS\n", failures);
  return failures ? 3 : 0;
}
