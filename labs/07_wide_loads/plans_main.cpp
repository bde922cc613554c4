// lab07_plans: every plan `best` could run for a shape (each tile, K whole, split or streamed, the
// narrow kernel), timed against the model's prediction and cuBLAS in one process. It answers the
// handout's question "is the model right?" with measurements: the plan best picks, the plan that
// measured fastest, and how far apart they are.
//
//   lab07_plans --shapes 1000,10240x128x6400,4096_ldb+1 [--repetitions 7] [--within 3]
//               [--output FILE.json]
//
// Each plan's result is compared with cuBLAS's (relative L2 difference, C poisoned first), so a
// plan that is fast but wrong, or writes nothing (a TODO kernel: "not implemented yet"), says so,
// and the exit code is 1. Repetitions are interleaved: plan by
// plan, then the next round, so that a drifting clock hits every plan alike.
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/cublas_gemm.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/event_timer.h"
#include "common/json_record.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "lab.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string shapes;
  int repetitions = 7;
  int warmups = 2;
  double within = 3.0;
  std::string output;
};

// One problem's matrices on the device, in its layout, filled once with random values.
struct Operands {
  cudalabs::GemmProblem problem;
  cudalabs::DeviceBuffer<float> a, b, c;

  explicit Operands(const cudalabs::GemmProblem& p) : problem(p) {
    const std::size_t offset = static_cast<std::size_t>(p.layout.pointer_offset);
    auto filled = [&](std::size_t count, const char* name) {
      std::vector<float> host(count + offset);
      cudalabs::fill_uniform(host, cudalabs::derive_seed(cudalabs::run_seed(), name));
      return cudalabs::DeviceBuffer<float>(std::span<const float>(host));
    };
    a = filled(static_cast<std::size_t>(cudalabs::matrix_span(p.shape.m, p.shape.k, p.lda())), "A");
    b = filled(static_cast<std::size_t>(cudalabs::matrix_span(p.shape.k, p.shape.n, p.ldb())), "B");
    c = filled(static_cast<std::size_t>(cudalabs::matrix_span(p.shape.m, p.shape.n, p.ldc())), "C");
  }

  cudalabs::GemmArgs args() {
    const int offset = problem.layout.pointer_offset;
    return {problem.shape.m, problem.shape.n,   problem.shape.k, 1.0f, a.data() + offset,
            problem.lda(),   b.data() + offset, problem.ldb(),   0.0f, c.data() + offset,
            problem.ldc()};
  }

  // C's rows as the host sees them (without the padding between rows).
  std::vector<float> c_rows() {
    const cudalabs::GemmArgs g = args();
    std::vector<float> rows(static_cast<std::size_t>(g.m) * g.n);
    CUDA_CHECK(cudaMemcpy2D(rows.data(), sizeof(float) * g.n, g.c, sizeof(float) * g.ldc,
                            sizeof(float) * g.n, g.m, cudaMemcpyDeviceToHost));
    return rows;
  }

  void poison_c() { cudalabs::poison_device(c.data(), sizeof(float) * c.size()); }
};

// ||got - want|| / ||want||; NaN when got holds a NaN (the poison of an unwritten element).
double relative_l2(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = static_cast<double>(got[i]) - want[i];
    diff += d * d;
    norm += static_cast<double>(want[i]) * want[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-300));
}

struct Row {
  std::string name;  // "cublas" or the plan's description without the prediction
  const lab07::BestPlan* plan = nullptr;
  std::vector<double> ms;
  double rel_l2 = 0.0;
  bool written = true;  // false when the plan left every element of C poisoned (a TODO kernel)
};

std::string plan_name(const lab07::BestPlan& plan) {
  std::string name = plan.candidate->name;
  if (plan.splits > 1) name += "/split" + std::to_string(plan.splits);
  if (plan.stream_k()) name += "/stream";
  return name;
}

nlohmann::json run_problem(const cudalabs::GemmProblem& problem, const Options& options,
                           const cudalabs::CublasHandle& cublas, int sms) {
  Operands operands(problem);
  const std::vector<lab07::BestPlan> plans = lab07::candidate_plans(problem.shape, sms);
  const lab07::BestPlan chosen = lab07::plan_best(problem.shape, sms);
  double fastest_predicted = 1e300;
  for (const lab07::BestPlan& plan : plans)
    fastest_predicted = std::min(fastest_predicted, plan.predicted_us);

  std::vector<Row> rows{{"cublas", nullptr, {}, 0.0}};
  for (const lab07::BestPlan& plan : plans) {
    const bool is_chosen = plan.same_as(chosen);
    if (is_chosen || plan.predicted_us <= options.within * fastest_predicted)
      rows.push_back({plan_name(plan), &plan, {}, 0.0});
  }
  auto launch = [&](const Row& row, cudaStream_t stream) {
    if (row.plan == nullptr) {
      cudalabs::cublas_gemm_row_major(cublas, operands.args(), stream);
    } else {
      lab07::launch_plan(*row.plan, operands.args(), stream);
    }
  };

  // Check: each plan's C against cuBLAS's, C poisoned before each.
  operands.poison_c();
  launch(rows[0], nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> want = operands.c_rows();
  const double bound = 8.0 * std::ldexp(1.0, -24) * std::sqrt(problem.shape.k + 2.0);
  for (Row& row : rows) {
    if (row.plan == nullptr) continue;
    operands.poison_c();
    launch(row, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = operands.c_rows();
    row.rel_l2 = relative_l2(got, want);
    row.written = !std::all_of(got.begin(), got.end(), cudalabs::is_poison);
  }

  // Time, interleaved: one measurement of every row per round. A measurement is `batch` runs back
  // to back between two events (about a millisecond of work), so that the host's time to enqueue a
  // run (cuBLAS's heuristics, a split's allocations) hides behind the GPU's work, as in a real
  // program, instead of counting as idle GPU time.
  const int batch = static_cast<int>(std::clamp(1000.0 / fastest_predicted, 1.0, 50.0));
  auto measure = [&](const Row& row, int warmups) {
    const auto runs = [&](cudaStream_t s, int) {
      for (int i = 0; i < batch; ++i) launch(row, s);
    };
    return cudalabs::time_each_run_ms(runs, warmups, 1).front() / batch;
  };
  for (const Row& row : rows) measure(row, options.warmups);
  for (int round = 0; round < options.repetitions; ++round) {
    for (Row& row : rows) row.ms.push_back(measure(row, 0));
  }

  const double cublas_us = 1e3 * cudalabs::median(rows[0].ms);
  const Row* fastest = nullptr;
  for (const Row& row : rows) {
    if (row.plan != nullptr && row.rel_l2 <= bound &&
        (fastest == nullptr || cudalabs::median(row.ms) < cudalabs::median(fastest->ms)))
      fastest = &row;
  }
  std::printf("\n%s: best picks %s; cuBLAS %.1f us (%d runs per measurement)\n",
              problem.label().c_str(), chosen.describe().c_str(), cublas_us, batch);
  std::printf("  %-26s %12s %12s %10s %10s\n", "plan", "predicted us", "measured us", "% cuBLAS",
              "rel. L2");
  nlohmann::json record_rows = nlohmann::json::array();
  for (const Row& row : rows) {
    if (row.plan == nullptr) continue;
    const double us = 1e3 * cudalabs::median(row.ms);
    const bool is_chosen = row.plan->same_as(chosen);
    const bool ok = row.rel_l2 <= bound;
    // A TODO kernel has no error and no speed worth showing: only its state.
    const char* check = !row.written ? "  not implemented yet" : ok ? "" : "  WRONG";
    char measured[64] = "           -          -          -";
    if (row.written)
      std::snprintf(measured, sizeof measured, "%12.1f %10.1f %10.2e", us, 100.0 * cublas_us / us,
                    row.rel_l2);
    std::printf("  %-26s %12.1f %s%s%s%s\n", row.name.c_str(), row.plan->predicted_us, measured,
                check, is_chosen ? "  <- best" : "", &row == fastest ? "  <- fastest" : "");
    record_rows.push_back({{"plan", row.name},
                           {"slice_k", row.plan->slice_k},
                           {"stream_blocks", row.plan->stream_blocks},
                           {"predicted_us", row.plan->predicted_us},
                           {"measured_us", us},
                           {"pct_cublas", 100.0 * cublas_us / us},
                           {"rel_l2", row.rel_l2},
                           {"written", row.written},
                           {"correct", ok},
                           {"chosen", is_chosen}});
  }
  return {{"problem", problem.label()},
          {"cublas_us", cublas_us},
          {"chosen", plan_name(chosen)},
          {"runs_per_measurement", batch},
          {"fastest", fastest ? fastest->name : ""},
          {"plans", record_rows}};
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{"Lab 07: every plan best could run, timed against the model and cuBLAS"};
  app.add_option("--shapes", options.shapes,
                 "problems, as the drivers' --shapes reads them (e.g. 1000,4096_ldb+1)")
      ->required()
      ->type_name("SHAPE,...");
  cudalabs::add_integer_flag(app, "--repetitions", options.repetitions, 1, 1000,
                             "interleaved timed rounds (median)");
  cudalabs::add_integer_flag(app, "--warmups", options.warmups, 0, 100, "untimed runs per plan");
  cudalabs::add_number_flag(app, "--within", options.within, 1.0, 1000.0,
                            "time the plans predicted within this factor of the fastest one "
                            "(best's choice always)");
  app.add_option("--output", options.output, "also write the measurements to this JSON file")
      ->type_name("FILE");
  cudalabs::parse_flags(app, argc, argv);
  if (!options.output.empty() && !std::ofstream(options.output, std::ios::app))
    throw cudalabs::FlagError("--output: '" + options.output + "' cannot be written");
  const std::vector<cudalabs::GemmProblem> problems =
      cudalabs::parse_gemm_problems("--shapes", options.shapes);
  for (const cudalabs::GemmProblem& problem : problems)
    cudalabs::validate_gemm_problem(problem, "--shapes");

  cudalabs::require_gpu();
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  std::printf("%s on %s (%d SMs), lab 07's %s kernels; %d interleaved rounds, medians\n",
              cudalabs::program_name().c_str(), device.name.c_str(), device.sm_count,
              cudalabs_lab07_kernels_build(), options.repetitions);
  const cudalabs::CublasHandle cublas;
  nlohmann::json results = nlohmann::json::array();
  bool all_correct = true;
  for (const cudalabs::GemmProblem& problem : problems) {
    results.push_back(run_problem(problem, options, cublas, device.sm_count));
    for (const nlohmann::json& plan : results.back()["plans"])
      all_correct = all_correct && plan["correct"].get<bool>();
  }
  if (!options.output.empty()) {
    cudalabs::write_json_file(options.output, {{"device", device.name},
                                               {"sms", device.sm_count},
                                               {"date", cudalabs::utc_timestamp()},
                                               {"kernels", cudalabs_lab07_kernels_build()},
                                               {"commit", cudalabs::built_from_commit()},
                                               {"command", cudalabs::recorded_command(argc, argv)},
                                               {"problems", results}});
  }
  return all_correct ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
