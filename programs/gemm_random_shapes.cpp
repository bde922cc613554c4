// gemm_random_shapes: lab 07's `best` against cuBLAS SGEMM and lab 11's `best` against cuBLAS in
// BF16 (cublasGemmEx, FP32 sums and C) on a list of shapes, both labs in one process, for
// scripts/gemm-random-shapes (which draws the shapes and summarizes this program's record).
//
//   gemm_random_shapes --shapes 4x123x5240,2557x5997x24 [--labs 07,11] [--seed S] [--rounds 7]
//                      [--min-rounds 3] [--round-ms 5] [--shape-ms 400] --output FILE.json
//
// Per shape and lab:
//  1. A, B and C drawn on the GPU from the seed (tight row-major: lda = K, ldb = ldc = N, as a
//     caller's matrices lie), alpha 1, beta 0. Where A, B and C fit in the L2 twice over, several
//     copies are rotated through, so that neither side times a cache the other warmed.
//  2. The check, on the GPU: cuBLAS's product and the product of |A| and |B| (every element's
//     bound), then `best` on a poisoned C, compared element by element (compare_gemm_device, the
//     drivers' bound with cuBLAS's own error allowed). A shape that fails is not timed.
//  3. Timing, interleaved: in each round `best` and cuBLAS each run a batch of launches back to
//     back between two events (at least --round-ms of work, so that the host's enqueue hides behind
//     the GPU's), the side that goes first alternating by round; per side the median of the rounds'
//     per-launch times. Rounds: --rounds, fewer for a shape whose rounds would take more than
//     --shape-ms (never fewer than --min-rounds), so a few huge shapes cannot eat the budget.
// The record: the run's context (device, date, commit, command, seed), the protocol, and per shape
// and lab the medians, every round's time, the launches per round and the check's verdict.
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/cublas_gemm.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_fill.h"
#include "common/device_info.h"
#include "common/event_timer.h"
#include "common/gemm_check.h"
#include "common/gemm_device_compare.h"
#include "common/json_record.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/11_tensor_cores/lab.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string shapes;
  std::string labs = "07,11";
  std::string output;
  std::string seed;  // empty: the run seed (CUDALABS_SEED, else fresh)
  int rounds = 7;
  int min_rounds = 3;
  double round_ms = 5.0;
  double shape_ms = 400.0;
};

// The most copies of a small problem's operands rotated through while timing.
constexpr int kMaxInputSets = 8;
// The most launches in one round's batch (a problem of a few microseconds).
constexpr int kMaxBatch = 2000;

// One lab's side of the benchmark, on operands of type Input.
template <class Input>
struct LabSide {
  const char* number;     // "07"
  const char* reference;  // the reference's name in the record
  void (*best)(const cudalabs::GemmArgsOf<Input>&, cudaStream_t);
  void (*reference_gemm)(const cudalabs::CublasHandle&, const cudalabs::GemmArgsOf<Input>&,
                         cudaStream_t);
  std::string unavailable;  // why `best` cannot run here; empty when it can
};

// Every copy of A, B and C one shape's timing rotates through, drawn on the GPU.
template <class Input>
struct InputSets {
  cudalabs::GemmShape shape;
  std::vector<cudalabs::DeviceBuffer<Input>> a, b;
  std::vector<cudalabs::DeviceBuffer<float>> c;

  InputSets(const cudalabs::GemmShape& s, int sets, std::uint64_t seed) : shape(s) {
    const std::size_t a_count = static_cast<std::size_t>(s.m) * s.k;
    const std::size_t b_count = static_cast<std::size_t>(s.k) * s.n;
    const std::size_t c_count = static_cast<std::size_t>(s.m) * s.n;
    for (int i = 0; i < sets; ++i) {
      const std::string set = std::to_string(i);
      a.emplace_back(a_count);
      b.emplace_back(b_count);
      c.emplace_back(c_count);
      cudalabs::fill_uniform_device(a.back().data(), a_count,
                                    cudalabs::derive_seed(seed, "A" + set));
      cudalabs::fill_uniform_device(b.back().data(), b_count,
                                    cudalabs::derive_seed(seed, "B" + set));
      cudalabs::fill_uniform_device(c.back().data(), c_count,
                                    cudalabs::derive_seed(seed, "C" + set));
    }
  }

  cudalabs::GemmArgsOf<Input> args(int set) {
    const std::size_t i = static_cast<std::size_t>(set) % a.size();
    return {shape.m,     shape.n, shape.k, 1.0f,        a[i].data(), shape.k,
            b[i].data(), shape.n, 0.0f,    c[i].data(), shape.n};
  }
};

// Copies of A, B and C (in their own types) until they fill the L2 twice, at most kMaxInputSets.
int input_sets_for(const cudalabs::GemmShape& s, std::size_t input_bytes, std::size_t l2_bytes) {
  const double one_set = static_cast<double>(input_bytes) *
                             (static_cast<double>(s.m) * s.k + static_cast<double>(s.k) * s.n) +
                         4.0 * s.m * static_cast<double>(s.n);
  return static_cast<int>(std::clamp(std::ceil(2.0 * static_cast<double>(l2_bytes) / one_set), 1.0,
                                     static_cast<double>(kMaxInputSets)));
}

// The check: cuBLAS's product and magnitudes, then best's C (poisoned first) against them on the
// GPU. Returns the comparison; throws what the launches throw.
template <class Input>
cudalabs::GemmComparison check_best(const LabSide<Input>& lab, InputSets<Input>& inputs,
                                    const cudalabs::CublasHandle& cublas) {
  const cudalabs::GemmShape& s = inputs.shape;
  cudalabs::GemmArgsOf<Input> args = inputs.args(0);
  const std::size_t c_count = static_cast<std::size_t>(s.m) * s.n;
  cudalabs::DeviceBuffer<float> product(c_count), magnitude(c_count);
  {
    cudalabs::GemmArgsOf<Input> reference = args;
    reference.c = product.data();
    lab.reference_gemm(cublas, reference, nullptr);
    cudalabs::DeviceBuffer<Input> abs_a(inputs.a[0].size()), abs_b(inputs.b[0].size());
    cudalabs::absolute_device(args.a, abs_a.data(), abs_a.size());
    cudalabs::absolute_device(args.b, abs_b.data(), abs_b.size());
    reference.a = abs_a.data();
    reference.b = abs_b.data();
    reference.c = magnitude.data();
    lab.reference_gemm(cublas, reference, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  cudalabs::poison_device(args.c, sizeof(float) * c_count);
  lab.best(args, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const cudalabs::DeviceGemmReference reference{s.m, s.n, s.n, product.data(), magnitude.data()};
  // cuBLAS is itself rounded: the per-element bound doubles and the L2 bound allows both errors,
  // as the drivers' checks of large problems do (common/gemm_check.cpp).
  const cudalabs::GemmTolerance t = cudalabs::input_tolerance<Input>();
  const cudalabs::GemmTolerance both{2.0 * t.error_factor, 2.0 * t.l2_factor, 2.0 * t.bias_factor};
  return cudalabs::compare_gemm_device(args.c, reference, s.k, both).comparison;
}

// One launch of each side, timed alone (after a warm-up): the estimate a round's batch is sized by.
double one_launch_ms(const std::function<void(cudaStream_t, int)>& launch) {
  return cudalabs::time_each_run_ms(launch, 1, 1).front();
}

struct SideTimes {
  int batch = 1;
  std::vector<double> ms;  // per launch, one entry per round
};

// Launches the host enqueues per measurement of its own cost: few enough that the GPU's queue of
// pending work never fills (a full queue would make the host wait for the GPU).
constexpr int kHostLaunches = 16;

// The host's microseconds to enqueue one launch, on an idle GPU: the median of three batches of
// kHostLaunches. Where it is as long as the launch's time between events, the side is bound by the
// host (the GPU waits for work), not by its kernels.
double host_us_per_launch(const std::function<void(cudaStream_t, int)>& launch) {
  std::vector<double> us;
  int run = 0;
  for (int batch = 0; batch < 3; ++batch) {
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < kHostLaunches; ++i) launch(nullptr, run++);
    const auto enqueued = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(enqueued - started).count() /
                 kHostLaunches);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return cudalabs::median(us);
}

// The GPU's microseconds per launch with the host out of the way: kHostLaunches launches captured
// into a CUDA graph, replayed between two events (the median of three replays after a warm-up).
// NaN where the launches cannot be captured.
double graph_us_per_launch(const std::function<void(cudaStream_t, int)>& launch) {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  double us = std::numeric_limits<double>::quiet_NaN();
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  try {
    for (int i = 0; i < kHostLaunches; ++i) launch(stream, i);
  } catch (const std::exception&) {
    // the launch could not be captured: end the capture, report NaN
  }
  const cudaError_t captured = cudaStreamEndCapture(stream, &graph);
  if (captured == cudaSuccess && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess) {
    std::vector<double> replays;
    cudalabs::EventTimer timer;
    for (int replay = 0; replay < 4; ++replay) {
      timer.start(stream);
      CUDA_CHECK(cudaGraphLaunch(exec, stream));
      timer.stop(stream);
      const double ms = timer.elapsed_ms();
      if (replay > 0) replays.push_back(1e3 * ms / kHostLaunches);
    }
    us = cudalabs::median(replays);
  }
  (void)cudaGetLastError();  // a failed capture's error is reported as NaN, not left pending
  if (exec != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec));
  if (graph != nullptr) CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return us;
}

// The interleaved rounds of one shape: `best` and the reference, each a batch of launches between
// two events, the first side alternating by round. Returns {best, reference}.
std::pair<SideTimes, SideTimes> time_rounds(const std::function<void(cudaStream_t, int)>& best,
                                            const std::function<void(cudaStream_t, int)>& reference,
                                            const Options& options, int& rounds_run) {
  const double best_ms = one_launch_ms(best), reference_ms = one_launch_ms(reference);
  SideTimes sides[2];
  const double estimate[2] = {best_ms, reference_ms};
  for (int i = 0; i < 2; ++i)
    sides[i].batch = static_cast<int>(std::clamp(
        std::ceil(options.round_ms / std::max(estimate[i], 1e-4)), 1.0, double{kMaxBatch}));
  const double round_cost = sides[0].batch * best_ms + sides[1].batch * reference_ms;
  rounds_run = static_cast<int>(std::clamp(std::floor(options.shape_ms / round_cost),
                                           static_cast<double>(options.min_rounds),
                                           static_cast<double>(options.rounds)));
  const std::function<void(cudaStream_t, int)>* launches[2] = {&best, &reference};
  cudalabs::EventTimer timers[2];
  int run = 0;
  for (int round = 0; round < rounds_run; ++round) {
    const int first = round % 2;
    for (int j = 0; j < 2; ++j) {
      const int side = first ^ j;
      timers[side].start(nullptr);
      for (int i = 0; i < sides[side].batch; ++i) (*launches[side])(nullptr, run++);
      timers[side].stop(nullptr);
    }
    for (int side = 0; side < 2; ++side)
      sides[side].ms.push_back(timers[side].elapsed_ms() / sides[side].batch);
  }
  return {sides[0], sides[1]};
}

template <class Input>
nlohmann::json run_shape(const LabSide<Input>& lab, const cudalabs::GemmShape& shape,
                         const Options& options, const cudalabs::CublasHandle& cublas,
                         std::uint64_t seed, std::size_t l2_bytes, bool& failed) {
  nlohmann::json entry = {{"lab", lab.number}, {"shape", shape.label()}};
  if (!lab.unavailable.empty()) {
    entry["check"] = "skipped: " + lab.unavailable;
    entry["passed"] = false;
    failed = true;
    return entry;
  }
  const int sets = input_sets_for(shape, sizeof(Input), l2_bytes);
  InputSets<Input> inputs(
      shape, sets,
      cudalabs::derive_seed(seed, std::string("lab") + lab.number + "/" + shape.label()));
  std::string verdict;
  bool passed = false;
  try {
    const cudalabs::GemmComparison comparison = check_best(lab, inputs, cublas);
    passed = comparison.passed();
    verdict = comparison.describe();
  } catch (const std::exception& error) {
    verdict = std::string("FAIL: ") + error.what();
  }
  entry["check"] = verdict;
  entry["passed"] = passed;
  entry["input_sets"] = sets;
  if (!passed) {
    failed = true;
    std::printf("lab %s %-20s %s\n", lab.number, shape.label().c_str(), verdict.c_str());
    return entry;
  }
  const auto best = [&](cudaStream_t stream, int run) { lab.best(inputs.args(run), stream); };
  const auto reference = [&](cudaStream_t stream, int run) {
    lab.reference_gemm(cublas, inputs.args(run), stream);
  };
  int rounds = 0;
  const auto [best_times, reference_times] = time_rounds(best, reference, options, rounds);
  const double best_ms = cudalabs::median(best_times.ms);
  const double reference_ms = cudalabs::median(reference_times.ms);
  entry["rounds"] = rounds;
  entry["best_ms"] = best_ms;
  entry["reference_ms"] = reference_ms;
  entry["best_rounds_ms"] = best_times.ms;
  entry["reference_rounds_ms"] = reference_times.ms;
  entry["launches_per_round"] = {{"best", best_times.batch}, {"reference", reference_times.batch}};
  const double best_host_us = host_us_per_launch(best);
  const double reference_host_us = host_us_per_launch(reference);
  entry["host_us_per_launch"] = {{"best", best_host_us}, {"reference", reference_host_us}};
  const double best_graph_us = graph_us_per_launch(best);
  const double reference_graph_us = graph_us_per_launch(reference);
  entry["graph_us_per_launch"] = {{"best", best_graph_us}, {"reference", reference_graph_us}};
  entry["gflops"] = shape.flops() / (best_ms * 1e6);
  std::printf(
      "lab %s %-20s best %10.4f ms  %s %10.4f ms  ratio %.3f  (%d rounds; host %.1f / %.1f us, "
      "graph %.1f / %.1f us a launch)\n",
      lab.number, shape.label().c_str(), best_ms, lab.reference, reference_ms,
      reference_ms / best_ms, rounds, best_host_us, reference_host_us, best_graph_us,
      reference_graph_us);
  std::fflush(stdout);
  return entry;
}

void cublas_sgemm(const cudalabs::CublasHandle& handle, const cudalabs::GemmArgs& args,
                  cudaStream_t stream) {
  cudalabs::cublas_gemm_row_major(handle, args, stream);
}

void cublas_bf16(const cudalabs::CublasHandle& handle, const cudalabs::Bf16GemmArgs& args,
                 cudaStream_t stream) {
  cudalabs::cublas_gemm_bf16_row_major(handle, args, stream);
}

std::string lab11_best_unavailable() {
  for (const lab11::TensorCoreVariant& variant : lab11::variants())
    if (std::string(variant.name) == "best") return cudalabs::unavailable_reason(variant);
  return "lab 11 has no variant named best";
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{
      "Lab 07's and lab 11's best against cuBLAS on a list of shapes, one process, interleaved "
      "rounds, medians (scripts/gemm-random-shapes draws the shapes)"};
  app.add_option("--shapes", options.shapes, "shapes MxNxK, comma-separated")
      ->required()
      ->type_name("SHAPE,...");
  app.add_option("--labs", options.labs, "07, 11 or 07,11 (default 07,11)")->type_name("LABS");
  app.add_option("--output", options.output, "the record (JSON)")->required()->type_name("FILE");
  app.add_option("--seed", options.seed, "seed of the inputs (default: CUDALABS_SEED, else fresh)")
      ->type_name("S");
  cudalabs::add_integer_flag(app, "--rounds", options.rounds, 2, 100,
                             "interleaved rounds per shape, medians (default 7)");
  cudalabs::add_integer_flag(app, "--min-rounds", options.min_rounds, 1, 100,
                             "the fewest rounds, however long a shape's (default 3)");
  cudalabs::add_number_flag(app, "--round-ms", options.round_ms, 0.01, 1000.0,
                            "least milliseconds of launches per side and round (default 5)");
  cudalabs::add_number_flag(app, "--shape-ms", options.shape_ms, 1.0, 1e6,
                            "milliseconds a shape's rounds may take before they are cut to "
                            "--min-rounds at least (default 400)");
  cudalabs::parse_flags(app, argc, argv);
  if (options.min_rounds > options.rounds)
    throw cudalabs::FlagError("--min-rounds: invalid value '" + std::to_string(options.min_rounds) +
                              "' (more than --rounds " + std::to_string(options.rounds) + ")");
  // 2^63 - 1 at most, as scripts/gemm-random-shapes draws it.
  const std::uint64_t seed =
      options.seed.empty() ? 0
                           : static_cast<std::uint64_t>(cudalabs::parse_integer_flag(
                                 "--seed", options.seed, 0, std::numeric_limits<long long>::max()));
  const bool lab07 = options.labs == "07" || options.labs == "07,11";
  const bool lab11 = options.labs == "11" || options.labs == "07,11";
  if (!lab07 && !lab11)
    throw cudalabs::FlagError("--labs: invalid value '" + options.labs +
                              "' (expected 07, 11 or 07,11)");
  const std::vector<cudalabs::GemmShape> shapes =
      cudalabs::parse_gemm_shapes("--shapes", options.shapes);
  for (const cudalabs::GemmShape& shape : shapes) cudalabs::validate_gemm_shape(shape, "--shapes");
  if (!std::ofstream(options.output, std::ios::app))
    throw cudalabs::FlagError("--output: '" + options.output + "' cannot be written");

  cudalabs::require_gpu();
  const auto started = std::chrono::steady_clock::now();
  const std::uint64_t inputs_seed = options.seed.empty() ? cudalabs::run_seed() : seed;
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  std::printf(
      "%s on %s (%d SMs): %zu shapes, labs %s, seed %llu; rounds of at least %g ms a side, "
      "%d of them (at least %d for a shape past %g ms), medians\n",
      cudalabs::program_name().c_str(), device.name.c_str(), device.sm_count, shapes.size(),
      options.labs.c_str(), static_cast<unsigned long long>(inputs_seed), options.round_ms,
      options.rounds, options.min_rounds, options.shape_ms);
  std::fflush(stdout);
  const cudalabs::CublasHandle cublas;
  const LabSide<float> fp32{"07", "cublas", &lab07::best_gemm, &cublas_sgemm, ""};
  const LabSide<__nv_bfloat16> bf16{"11", "cublas_bf16", &lab11::best_gemm, &cublas_bf16,
                                    lab11_best_unavailable()};
  nlohmann::json entries = nlohmann::json::array();
  bool failed = false;
  for (const cudalabs::GemmShape& shape : shapes) {
    if (lab07)
      entries.push_back(
          run_shape(fp32, shape, options, cublas, inputs_seed, device.l2_bytes, failed));
    if (lab11)
      entries.push_back(
          run_shape(bf16, shape, options, cublas, inputs_seed, device.l2_bytes, failed));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  nlohmann::json context;
  for (const auto& [key, value] : cudalabs::run_context(device, argc, argv, inputs_seed))
    context[key] = value;
  context["date"] = cudalabs::utc_timestamp();
  context["lab07_kernels"] = cudalabs_lab07_kernels_build();
  context["lab11_kernels"] = cudalabs_lab11_kernels_build();
  cudalabs::write_json_file(
      options.output,
      {{"context", context},
       {"protocol",
        {{"layout", "tight row-major (lda = K, ldb = ldc = N), alpha 1, beta 0"},
         {"rounds", options.rounds},
         {"min_rounds", options.min_rounds},
         {"round_ms", options.round_ms},
         {"shape_ms", options.shape_ms},
         {"timing",
          "per round, best and the reference each a batch of launches back to back between two "
          "events, the first side alternating; per side the median of the rounds' per-launch "
          "times"},
         {"host_us_per_launch",
          "the host's time to enqueue one launch, on an idle GPU: the median of 3 batches of " +
              std::to_string(kHostLaunches) + " launches (as long as best_ms: bound by the host)"},
         {"graph_us_per_launch",
          "the GPU's time per launch without the host: " + std::to_string(kHostLaunches) +
              " launches captured in a CUDA graph, the median of 3 replays (null: not capturable)"},
         {"check", "every element against cuBLAS on the GPU, bound from |A||B| (cuBLAS)"}}},
       {"elapsed_s", seconds},
       {"shapes", entries}});
  std::printf("%s: %zu shapes in %.1f s; wrote %s\n", cudalabs::program_name().c_str(),
              shapes.size(), seconds, options.output.c_str());
  return failed ? cudalabs::kExitFailed : cudalabs::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
