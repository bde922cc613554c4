// Lab 11's warp-specialized kernel at shapes given on the command line, two modes, one process,
// every C (poisoned first) checked against cuBLAS's (relative L2 at most 4 sqrt(K) 2^-24):
//
//   bench_tail_split11 tail MxNxK ...   on 128-row tiles 64, 128 and 256 wide: K whole, and the
//       model's fastest tail split (whole rounds but the last one or two K whole, the rest's K in
//       slices; best_plan.h); `best`; cuBLAS. GPU time a launch on a stream (batches of launches
//       between two events), and `best`'s and cuBLAS's from graph replays too.
//       Lines: "tail SHAPE WIDTH SLICES WHOLE_TILES US PREDICTED_US REL_L2" (slices 1: K whole),
//       "best SHAPE US GRAPH_US CUBLAS_US CUBLAS_GRAPH_US REL_L2 | PLAN".
//   bench_tail_split11 lines MxNxK ...  rows 16-byte aligned but off 128-byte lines (K or N not a
//       multiple of 64), on 128- and 256-wide tiles, K whole: the kernel alone on the operands as
//       they are with tensor maps promoting 128 bytes into L2 (what tma_maps.cpp encodes) and 256;
//       on A, B, or both copied beforehand onto rows 128 bytes apart (the same values); and the
//       launch that copies B, or A, onto lines first (run_specialized with OnLines).
//       Lines: "lines SHAPE WIDTH AS_IS_US AS_IS_256B_US A_ON_US B_ON_US BOTH_ON_US
//       COPY_B_US COPY_A_US WORST_REL_L2".
// Every timed call is interleaved with the others of its shape: 9 rounds, the first 2 not
// counted, medians.
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"
#include "common/tensor_map_encoder.h"

#include <string>

namespace {

constexpr int kSms = 132;  // the H100 SXM's SMs; checked against the device in main

// A tensor map as bf16_tensor_map encodes it, but promoting `promotion` into L2.
CUtensorMap map_with(const __nv_bfloat16* matrix, int rows, int cols, int ld, int box_rows,
                     CUtensorMapL2promotion promotion) {
  CUtensorMap map{};
  const cuuint64_t size[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t stride[1] = {static_cast<cuuint64_t>(ld) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(lab11::kBoxColumns),
                             static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_stride[2] = {1, 1};
  if (cudalabs::tensor_map_encoder()(
          &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(matrix), size,
          stride, box, element_stride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
          promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "map refused\n");
    std::exit(2);
  }
  return map;
}

// The warp-specialized kernel alone, K whole, on maps encoded once.
template <int kWidth>
std::function<void()> kernel_alone(const cudalabs::Bf16GemmArgs& args,
                                   CUtensorMapL2promotion promotion, cudaStream_t stream) {
  const lab11::WorkUnits units = lab11::specialized_units<kWidth>(args.shape(), 1);
  const cudalabs::KernelLaunch config = lab11::specialized_launch<kWidth>(units);
  const CUtensorMap a_map = map_with(args.a, args.m, args.k, args.lda, 128, promotion);
  const CUtensorMap b_map =
      map_with(args.b, args.k, args.n, args.ldb, lab11::SwizzledTile::BK, promotion);
  return [=] {
    lab11::warp_specialized_kernel<kWidth, 128>
        <<<config.grid, config.block, config.dynamic_shared_bytes, stream>>>(args, a_map, b_map,
                                                                             units);
  };
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

// A graph of `count` runs of `call`, replayed as one call.
std::function<void()> graph_of(cudaStream_t stream, int count, const std::function<void()>& call,
                               std::vector<cudaGraphExec_t>& made) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int r = 0; r < count; ++r) call();
  CK(cudaStreamEndCapture(stream, &graph));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  CK(cudaGraphDestroy(graph));
  made.push_back(exec);
  return [=] { CK(cudaGraphLaunch(exec, stream)); };
}

// run_specialized at a width chosen at run time.
void run_at(int width, const cudalabs::Bf16GemmArgs& args, int slices, int whole,
            lab11::OnLines lines, cudaStream_t stream) {
  if (width == 64) return lab11::run_specialized<64>(args, slices, stream, lines, whole);
  if (width == 128) return lab11::run_specialized<128>(args, slices, stream, lines, whole);
  lab11::run_specialized<256>(args, slices, stream, lines, whole);
}

// The model's fastest tail split on 128-row tiles `width` wide, as plan_best weighs them
// (slices 1 where the tiles fill no round and part of another).
lab11::SpecializedPlan fastest_tail(const cudalabs::GemmShape& shape, int width) {
  lab11::SpecializedPlan fastest{width, 1, 1e30};
  const int tiles = lab11::WorkUnits::of(shape, 128, width, lab11::SwizzledTile::BK, 1).tiles();
  const int k_blocks = cudalabs::ceil_div(shape.k, lab11::SwizzledTile::BK);
  const int most = (tiles - 1) / kSms;
  for (int rounds = std::max(1, most - 1); rounds <= most; ++rounds)
    for (int slices = 2; slices <= std::min(k_blocks, kSms); ++slices) {
      if (!lab11::WorkUnits::slices_fit(k_blocks, slices)) continue;
      const double us =
          lab11::predicted_specialized_us(shape, width, slices, kSms, 128, rounds * kSms);
      if (us < fastest.predicted_us) fastest = {width, slices, us, 128, rounds * kSms};
    }
  return fastest;
}

int failures = 0;

double checked(bench::Problem& problem, double tolerance, const std::function<void()>& run) {
  const double error = problem.rel_l2_of(run);
  CK(cudaGetLastError());
  if (!(error <= tolerance)) ++failures;
  return error;
}

void tail(int m, int n, int k, std::mt19937& rng, cudaStream_t stream,
          const cudalabs::CublasHandle& cublas) {
  bench::Problem problem(m, n, k, rng, stream);
  problem.compute_reference(cublas);
  const cudalabs::Bf16GemmArgs args = problem.args;
  const double tolerance = 4.0 * std::sqrt(static_cast<double>(k)) * std::ldexp(1.0, -24);
  struct Alternative {
    lab11::SpecializedPlan plan;
    double error;
  };
  std::vector<Alternative> alternatives;
  for (const int width : {64, 128, 256}) {
    const lab11::SpecializedPlan whole{
        width, 1, lab11::predicted_specialized_us(args.shape(), width, 1, kSms)};
    for (const lab11::SpecializedPlan& plan : {whole, fastest_tail(args.shape(), width)}) {
      if (plan.predicted_us > 1e29) continue;  // no tail split on these tiles
      alternatives.push_back({plan, checked(problem, tolerance, [&] {
                                run_at(plan.width, args, plan.slices, plan.whole_tiles, {}, stream);
                              })});
    }
  }
  const double best_error = checked(problem, tolerance, [&] { lab11::launch_best(args, stream); });
  const auto best = [&] { lab11::launch_best(args, stream); };
  const auto reference = [&] {
    cudalabs::cublas_gemm_bf16_row_major(cublas, problem.reference, stream);
  };
  const int count = batch_of(stream, best);
  std::vector<std::function<void()>> calls;
  for (const Alternative& alternative : alternatives) {
    const lab11::SpecializedPlan plan = alternative.plan;
    calls.push_back(
        times(count, [=] { run_at(plan.width, args, plan.slices, plan.whole_tiles, {}, stream); }));
  }
  std::vector<cudaGraphExec_t> graphs;
  calls.push_back(times(count, best));
  calls.push_back(graph_of(stream, count, best, graphs));
  calls.push_back(times(count, reference));
  calls.push_back(graph_of(stream, count, reference, graphs));
  const std::vector<double> us = bench::interleaved_us(stream, calls, count);
  const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  for (std::size_t i = 0; i < alternatives.size(); ++i) {
    const lab11::SpecializedPlan& plan = alternatives[i].plan;
    std::printf("tail %s %d %d %d %.2f %.2f %.2e\n", shape.c_str(), plan.width, plan.slices,
                plan.whole_tiles, us[i], plan.predicted_us, alternatives[i].error);
  }
  const std::size_t at = alternatives.size();
  std::printf("best %s %.2f %.2f %.2f %.2f %.2e | %s\n", shape.c_str(), us[at], us[at + 1],
              us[at + 2], us[at + 3], best_error,
              lab11::planned_best(args.shape()).describe().c_str());
  std::fflush(stdout);
  for (const cudaGraphExec_t exec : graphs) CK(cudaGraphExecDestroy(exec));
}

// A copy of `from` (rows x cols, leading dimension ld) with rows 128 bytes apart.
__nv_bfloat16* on_lines(const __nv_bfloat16* from, int rows, int cols, int ld, int& lined) {
  lined = (cols + 63) / 64 * 64;
  __nv_bfloat16* to = nullptr;
  CK(cudaMalloc(&to, static_cast<std::size_t>(rows) * lined * 2));
  CK(cudaMemcpy2D(to, lined * 2, from, ld * 2, cols * 2, rows, cudaMemcpyDeviceToDevice));
  return to;
}

template <int kWidth>
void lines_at(bench::Problem& problem, const std::string& shape, cudaStream_t stream) {
  const cudalabs::Bf16GemmArgs args = problem.args;
  int lda = 0, ldb = 0;
  __nv_bfloat16* a = on_lines(args.a, args.m, args.k, args.lda, lda);
  __nv_bfloat16* b = on_lines(args.b, args.k, args.n, args.ldb, ldb);
  cudalabs::Bf16GemmArgs a_on = args, b_on = args, both_on = args;
  a_on.a = both_on.a = a;
  a_on.lda = both_on.lda = lda;
  b_on.b = both_on.b = b;
  b_on.ldb = both_on.ldb = ldb;
  const double tolerance = 4.0 * std::sqrt(static_cast<double>(args.k)) * std::ldexp(1.0, -24);
  const std::vector<std::function<void()>> runs = {
      kernel_alone<kWidth>(args, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, stream),
      kernel_alone<kWidth>(args, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, stream),
      kernel_alone<kWidth>(a_on, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, stream),
      kernel_alone<kWidth>(b_on, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, stream),
      kernel_alone<kWidth>(both_on, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, stream),
      [=] {
        lab11::run_specialized<kWidth>(args, 1, stream, {false, true});
      },
      [=] {
        lab11::run_specialized<kWidth>(args, 1, stream, {true, false});
      }};
  double worst = 0.0;
  for (const auto& run : runs) worst = std::max(worst, checked(problem, tolerance, run));
  const int count = batch_of(stream, runs[0]);
  std::vector<std::function<void()>> calls;
  for (const auto& run : runs) calls.push_back(times(count, run));
  const std::vector<double> us = bench::interleaved_us(stream, calls, count);
  std::printf("lines %s %d", shape.c_str(), kWidth);
  for (const double t : us) std::printf(" %.2f", t);
  std::printf(" %.2e\n", worst);
  std::fflush(stdout);
  CK(cudaFree(a));
  CK(cudaFree(b));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 3 || (mode != "tail" && mode != "lines")) {
    std::fprintf(stderr, "usage: %s tail|lines MxNxK ...\n", argv[0]);
    return 1;
  }
  if (cudalabs::multiprocessor_count() != kSms) {
    std::fprintf(stderr, "this GPU has %d SMs; the bench weighs plans for %d\n",
                 cudalabs::multiprocessor_count(), kSms);
    return 1;
  }
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudalabs::CublasHandle cublas;
  std::mt19937 rng(20261206);
  for (int i = 2; i < argc; ++i) {
    int m, n, k;
    if (!bench::parse_shape(argv[i], m, n, k)) return 1;
    if (mode == "tail") {
      tail(m, n, k, rng, stream, cublas);
      continue;
    }
    if (k % 8 || n % 8 || (k % 64 == 0 && n % 64 == 0)) {
      std::fprintf(stderr, "lines: %s needs rows 16-byte aligned and off 128-byte lines\n",
                   argv[i]);
      return 1;
    }
    bench::Problem problem(m, n, k, rng, stream);
    problem.compute_reference(cublas);
    lines_at<128>(problem, argv[i], stream);
    lines_at<256>(problem, argv[i], stream);
  }
  CK(cudaStreamDestroy(stream));
  if (failures) std::fprintf(stderr, "%d runs differ from cuBLAS\n", failures);
  return failures ? 3 : 0;
}
