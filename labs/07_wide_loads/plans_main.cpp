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
// and the exit code is 1. Repetitions are interleaved: plan by plan, then the next round, so that a
// drifting clock hits every plan alike. After timing, every plan is checked again in the operands
// it was timed in, on fresh A and B (plan_runs.h): one that went wrong there says "FAIL after
// timing" and fails the run.
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/cublas_gemm.h"
#include "common/device_info.h"
#include "common/event_timer.h"
#include "common/json_record.h"
#include "lab.h"
#include "labs/07_wide_loads/plan_runs.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
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

// The problem's table (and its rechecks' lines), and its part of the record; `rechecks` gains
// each plan's check after timing, named "<problem>/<plan>".
nlohmann::json report_problem(const cudalabs::GemmProblem& problem, const lab07::ProblemRuns& runs,
                              nlohmann::json& rechecks) {
  const std::vector<lab07::Row>& rows = runs.rows();
  const double bound = lab07::error_bound(problem.shape.k);
  const double cublas_us = 1e3 * cudalabs::median(rows[0].ms);
  const lab07::Row* fastest = nullptr;
  for (const lab07::Row& row : rows) {
    if (row.plan != nullptr && row.checked.rel_l2 <= bound &&
        (fastest == nullptr || cudalabs::median(row.ms) < cudalabs::median(fastest->ms)))
      fastest = &row;
  }
  std::printf("\n%s: best picks %s; cuBLAS %.1f us (%d runs per measurement)\n",
              problem.label().c_str(), runs.chosen().describe().c_str(), cublas_us,
              runs.runs_per_measurement());
  std::printf("  %-26s %12s %12s %10s %10s\n", "plan", "predicted us", "measured us", "% cuBLAS",
              "rel. L2");
  nlohmann::json record_rows = nlohmann::json::array();
  for (const lab07::Row& row : rows) {
    if (row.plan == nullptr) continue;
    const double us = 1e3 * cudalabs::median(row.ms);
    const bool is_chosen = row.plan->same_as(runs.chosen());
    const bool ok = row.checked.rel_l2 <= bound;
    const bool failed_after = ok && row.after_timing && !row.after_timing->passed;
    // A TODO kernel has no error and no speed worth showing: only its state.
    const char* check = !row.checked.written ? "  not implemented yet"
                        : !ok                ? "  WRONG"
                        : failed_after       ? "  FAIL after timing"
                                             : "";
    char measured[64] = "           -          -          -";
    if (row.checked.written)
      std::snprintf(measured, sizeof measured, "%12.1f %10.1f %10.2e", us, 100.0 * cublas_us / us,
                    row.checked.rel_l2);
    std::printf("  %-26s %12.1f %s%s%s%s\n", row.name.c_str(), row.plan->predicted_us, measured,
                check, is_chosen ? "  <- best" : "", &row == fastest ? "  <- fastest" : "");
    record_rows.push_back({{"plan", row.name},
                           {"slice_k", row.plan->slice_k},
                           {"stream_blocks", row.plan->stream_blocks},
                           {"predicted_us", row.plan->predicted_us},
                           {"measured_us", us},
                           {"pct_cublas", 100.0 * cublas_us / us},
                           {"rel_l2", row.checked.rel_l2},
                           {"written", row.checked.written},
                           {"correct", ok},
                           {"chosen", is_chosen}});
  }
  for (const lab07::Row& row : rows) {
    if (!row.after_timing) continue;
    const std::string name = problem.label() + "/" + row.name;
    std::printf("  recheck %s: %s\n", name.c_str(), row.after_timing->message.c_str());
    rechecks[name] = {{"passed", row.after_timing->passed}, {"message", row.after_timing->message}};
  }
  return {{"problem", problem.label()},
          {"cublas_us", cublas_us},
          {"chosen", lab07::plan_name(runs.chosen())},
          {"runs_per_measurement", runs.runs_per_measurement()},
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
  nlohmann::json results = nlohmann::json::array(), rechecks = nlohmann::json::object();
  bool all_correct = true;
  for (const cudalabs::GemmProblem& problem : problems) {
    lab07::ProblemRuns runs(problem, options.within, cublas, device.sm_count);
    runs.check();
    runs.time(options.warmups, options.repetitions);
    runs.recheck();
    results.push_back(report_problem(problem, runs, rechecks));
    for (const nlohmann::json& plan : results.back()["plans"])
      all_correct = all_correct && plan["correct"].get<bool>();
  }
  for (const auto& [name, recheck] : rechecks.items())
    all_correct = all_correct && recheck["passed"].get<bool>();
  if (!options.output.empty()) {
    cudalabs::write_json_file(options.output, {{"device", device.name},
                                               {"sms", device.sm_count},
                                               {"date", cudalabs::utc_timestamp()},
                                               {"kernels", cudalabs_lab07_kernels_build()},
                                               {"commit", cudalabs::built_from_commit()},
                                               {"command", cudalabs::recorded_command(argc, argv)},
                                               {"problems", results},
                                               {"rechecks", rechecks}});
  }
  return all_correct ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
