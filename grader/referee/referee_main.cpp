// The referee: the trusted side of grading one lab. Its code is the suite's; the student's code
// runs only in the runner it talks to. Three modes:
//   referee [gtest flags]                      the lab's grading tests, every student call remote
//   referee --probe VARIANT --out F [flags]    one checked call of VARIANT (Nsight Compute profiles
//                                              the runner meanwhile); F: the problem's facts
//                                              (VARIANT,VARIANT...: one call of each, in one
//                                              runner; --ranges TAG: each call inside an NVTX
//                                              range named TAG[VARIANT], whose kernels a tool
//                                              watching them all can tell apart, after one
//                                              unmeasured call in TAG-warm, a range the tool
//                                              is told to leave out)
//   referee --bench --variants A,B --pairs P --rounds R --out F [flags]
//                                              the reference's runner, then the student's, P times;
//                                              every timed call's output checked; F: the rates
// The lab's problem flags (e.g. --size 2048) follow; the lab's workload reads them.
#include "common/device_info.h"
#include "common/random_fill.h"
#include "grader/referee/check_cannot_fail.h"
#include "grader/referee/memory_floor.h"
#include "grader/referee/remote_runner.h"
#include "grader/referee/workload.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader::referee {
namespace {

// Every event the runner causes is filed under the test that caused it.
class EventContext : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& info) override {
    set_event_context(std::string(info.test_suite_name()) + "." + info.name());
  }
  void OnTestEnd(const ::testing::TestInfo&) override { set_event_context(""); }
};

struct Flags {
  std::string out, variant, ranges;
  std::vector<std::string> variants;
  int pairs = 3, rounds = 5;
  std::vector<std::string> problem;  // the lab's own flags
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

int parse_count(const std::string& flag, const std::string& text, int low, int high) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size() && value >= low && value <= high) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(flag + ": '" + text + "' is not a whole number from " +
                              std::to_string(low) + " to " + std::to_string(high));
}

Flags parse(int argc, char** argv, int first) {
  Flags flags;
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--out")
      flags.out = value();
    else if (arg == "--variants")
      flags.variants = split(value());
    else if (arg == "--ranges")
      flags.ranges = value();
    else if (arg == "--pairs")
      flags.pairs = parse_count(arg, value(), 1, 20);
    else if (arg == "--rounds")
      flags.rounds = parse_count(arg, value(), 1, 50);
    else
      flags.problem.push_back(arg);
  }
  if (flags.out.empty()) throw std::invalid_argument("--out FILE is required");
  return flags;
}

void write_json(const std::string& path, const nlohmann::json& value) {
  std::ofstream file(path);
  file << value.dump(1) << "\n";
  if (!file) throw std::runtime_error("cannot write " + path);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

nlohmann::json facts_of(const Workload& workload) {
  nlohmann::json facts = nlohmann::json::object();
  for (const auto& [name, value] : workload.facts()) facts[name] = value;
  return facts;
}

// One checked call of `variant` on the runner: the probe's record of it.
nlohmann::json probe_one(RemoteRunner& runner, const std::string& variant, const Flags& flags) {
  nlohmann::json result = {{"variant", variant}};
  bool range_open = false;
  try {
    std::unique_ptr<Workload> workload = make_workload(variant, flags.problem);
    if (!workload) throw std::runtime_error("this lab has no probe problem");
    workload->share_inputs(cudalabs::derive_seed(cudalabs::run_seed(), "probe/shared"));
    result["problem"] = workload->problem();
    set_event_context("probe " + variant);
    if (!flags.ranges.empty()) {
      // Measured, a call first runs once on inputs of its own, in a range no rule reads: what a
      // variant does once (a per-layer choice timed, a plan or module loaded) is no call's work.
      runner.range(flags.ranges + "-warm");
      range_open = true;
      result["runner_pid"] = runner.runner_pid();
      runner.run(workload->prepare(
          runner, 1, cudalabs::derive_seed(cudalabs::run_seed(), "probe-warm/" + variant)));
      runner.range("");
      range_open = false;
      workload->check(runner);
      runner.free_all();
    }
    const std::vector<Call> calls = workload->prepare(
        runner, 1, cudalabs::derive_seed(cudalabs::run_seed(), "probe/" + variant));
    // The facts of the problem as prepared (lab 00's chains draw their length per set).
    result["facts"] = facts_of(*workload);
    // Only the calls inside the range: the puts before and the reads after launch no kernel of
    // the student's, and a kernel launched outside every range is counted against every probe.
    if (!flags.ranges.empty()) {
      runner.range(flags.ranges + "[" + variant + "]");
      range_open = true;
    }
    result["runner_pid"] = runner.runner_pid();
    runner.run(calls);
    if (range_open) {
      runner.range("");
      range_open = false;
    }
    workload->check(runner);
    runner.free_kept();
    result["ok"] = true;
  } catch (const std::exception& error) {
    result["ok"] = false;
    result["error"] = error.what();
    if (dynamic_cast<const CheckCannotFail*>(&error) != nullptr)
      result["grader_error"] = error.what();
    try {
      // A call that threw left its range open in a runner that still runs: closed, so that the
      // next probe's kernels are not inside two ranges. (A runner that died took it along.)
      if (range_open && runner.running() &&
          runner.runner_pid() == result["runner_pid"].get<std::int64_t>())
        runner.range("");
      runner.free_kept();
    } catch (...) {
    }
  }
  return result;
}

// --probe A: one call of A ({"variant", "ok", "problem", "facts"}); --probe A,B,...: one call of
// each, in one runner ({"variants": {A: {...}, ...}}: a sanitizer watching the timed problem).
int probe_main(int argc, char** argv) {
  if (argc < 3)
    throw std::invalid_argument(
        "usage: referee --probe VARIANT[,VARIANT...] --out FILE [problem flags]");
  const std::vector<std::string> variants = split(argv[2]);
  if (variants.empty()) throw std::invalid_argument("--probe: no variant named");
  const Flags flags = parse(argc, argv, 3);
  RemoteRunner& runner = RemoteRunner::shared();
  nlohmann::json result;
  if (variants.size() == 1) {
    result = probe_one(runner, variants.front(), flags);
  } else {
    for (const std::string& variant : variants)
      result["variants"][variant] = probe_one(runner, variant, flags);
  }
  try {
    runner.stop();
  } catch (const std::exception& error) {
    result["stop_error"] = error.what();
  }
  write_json(flags.out, result);
  return 0;
}

// One side's rounds of one variant on its runner: the median rate, or what went wrong.
nlohmann::json time_side(RemoteRunner& runner, const std::string& variant, const Flags& flags,
                         std::uint64_t seed, std::uint64_t shared_seed,
                         const MemoryCeiling& ceiling) {
  std::unique_ptr<Workload> workload = make_workload(variant, flags.problem);
  if (!workload) throw std::runtime_error("this lab has no timed problem");
  workload->share_inputs(shared_seed);
  nlohmann::json side;
  std::string stage = "warm-up";
  // Where a side's time goes (the grader's own cost, for the records): preparing, the calls,
  // checking and freeing.
  double preparing = 0.0, calling = 0.0, checking = 0.0;
  auto prepare = [&](int sets, std::uint64_t set_seed) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Call> calls = workload->prepare(runner, sets, set_seed);
    preparing += seconds_since(start);
    return calls;
  };
  auto check_and_free = [&] {
    const auto start = std::chrono::steady_clock::now();
    workload->check(runner);  // every timed call's output, where it was made
    runner.free_all();
    checking += seconds_since(start);
  };
  try {
    // A first call loads the modules; a second, timed, sizes the rounds.
    for (int warm = 0; warm < 2; ++warm) {
      std::vector<Call> calls =
          prepare(1, cudalabs::derive_seed(seed, "warm" + std::to_string(warm)));
      const auto start = std::chrono::steady_clock::now();
      runner.run(calls);
      const double seconds = seconds_since(start);
      calling += seconds;
      check_and_free();
      if (warm == 1) side["first_call_s"] = seconds;
    }
    const double per_call = std::max(side["first_call_s"].get<double>(), 1e-6);
    // Every set is put into the runner and its outputs read back each round: a gibibyte of them
    // keeps a round's copies (lab 12's scans: a quarter of a GiB a set) from costing more than
    // the calls they time.
    const std::size_t memory_cap = std::size_t{1} << 30;
    const int by_memory = static_cast<int>(
        std::max<std::size_t>(2, memory_cap / std::max<std::size_t>(workload->bytes_per_set(), 1)));
    const int sets =
        std::clamp(static_cast<int>(std::ceil(0.03 / per_call)), 2, std::min(64, by_memory));
    side["sets"] = sets;
    std::vector<double> rates;
    for (int round = 0; round < flags.rounds; ++round) {
      stage = "round " + std::to_string(round + 1);
      std::vector<Call> calls =
          prepare(sets, cudalabs::derive_seed(seed, "round" + std::to_string(round)));
      const auto start = std::chrono::steady_clock::now();
      runner.run(calls);
      const double seconds = seconds_since(start);
      calling += seconds;
      check_and_free();
      const double least = least_round_seconds(ceiling, workload->least_bytes_per_call(), sets);
      if (seconds < least) {
        throw std::runtime_error(
            "wrong timing of " + variant + " on " + workload->problem() + ": " +
            std::to_string(sets) + " calls took " + std::to_string(seconds) + " s, less than the " +
            std::to_string(least) +
            " s the GPU's memory needs to move their bytes (at its peak, less what the L2 holds): "
            "their work was not done in the round");
      }
      rates.push_back(workload->prepared_work() / seconds / workload->unit_scale());
    }
    std::sort(rates.begin(), rates.end());
    side["rates"] = rates;
    side["median"] = rates[rates.size() / 2];
    side["seconds"] = {{"prepare", preparing}, {"calls", calling}, {"check", checking}};
  } catch (const CheckCannotFail& error) {
    side["grader_error"] = stage + ": " + error.what();
    try {
      runner.free_all();
    } catch (...) {
    }
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    // A check that failed says "wrong"; anything else is the runner's failure.
    side[message.rfind("wrong", 0) == 0 ? "wrong" : "error"] = stage + ": " + message;
    try {
      runner.free_all();
    } catch (...) {
    }
  } catch (const std::exception& error) {
    side["error"] = stage + ": " + error.what();
  }
  try {
    runner.free_kept();  // the next variant's problem puts its own pools
  } catch (...) {
  }
  return side;
}

int bench_main(int argc, char** argv) {
  const Flags flags = parse(argc, argv, 2);
  if (flags.variants.empty()) throw std::invalid_argument("--variants A,B is required");
  const RunnerSettings student = RunnerSettings::from_environment("CUDALABS_RUNNER");
  const RunnerSettings solution = RunnerSettings::from_environment("CUDALABS_RUNNER_SOLUTION");
  nlohmann::json result = {
      {"pairs", flags.pairs}, {"rounds", flags.rounds}, {"variants", nlohmann::json::object()}};
  if (auto workload = make_workload(flags.variants.front(), flags.problem)) {
    result["problem"] = workload->problem();
    result["unit"] = workload->unit();
  }
  // A lab's lists may time different problems (lab 13: a softmax in GB/s, attention in GFLOP/s).
  for (const std::string& variant : flags.variants) {
    if (auto workload = make_workload(variant, flags.problem)) {
      result["variants"][variant]["problem"] = workload->problem();
      result["variants"][variant]["unit"] = workload->unit();
    }
  }
  const std::uint64_t seed = cudalabs::derive_seed(cudalabs::run_seed(), "bench");
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  const MemoryCeiling ceiling =
      memory_ceiling(device.memory_clock_khz, device.memory_bus_bits, device.l2_bytes);
  result["memory_ceiling"] = {{"peak_bytes_per_s", ceiling.peak_bytes_per_s},
                              {"l2_bytes", ceiling.l2_bytes}};
  for (int pair = 0; pair < flags.pairs; ++pair) {
    // The reference first, then the student: each runner is stopped (its sandbox gone) before the
    // other starts, so no student process is alive while the reference is timed.
    for (const auto& [who, settings] :
         {std::pair{"solution", solution}, std::pair{"student", student}}) {
      const auto side_start = std::chrono::steady_clock::now();
      RemoteRunner runner(settings);
      for (const std::string& variant : flags.variants) {
        set_event_context(std::string("bench ") + who + " " + variant);
        // Both sides get the same inputs in a pair; every pair and round new ones.
        const std::uint64_t pair_seed =
            cudalabs::derive_seed(seed, variant + "/" + std::to_string(pair));
        result["variants"][variant]["pairs"][pair][who] =
            time_side(runner, variant, flags, pair_seed,
                      cudalabs::derive_seed(seed, "shared/" + std::to_string(pair)), ceiling);
      }
      runner.stop();
      result["side_seconds"][pair][who] = seconds_since(side_start);  // the grader's own cost
    }
  }
  write_json(flags.out, result);
  return 0;
}

}  // namespace
}  // namespace grader::referee

int main(int argc, char** argv) {
  using namespace grader::referee;
  std::signal(
      SIGPIPE,
      SIG_IGN);  // a runner that dies mid-write is an error of that call, not the referee's end
  try {
    if (argc > 1 && std::string(argv[1]) == "--probe") return probe_main(argc, argv);
    if (argc > 1 && std::string(argv[1]) == "--bench") return bench_main(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "referee: " << error.what() << "\n";
    return 2;
  }
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new EventContext);
  const int status = RUN_ALL_TESTS();
  try {
    RemoteRunner::stop_shared();  // a tool's report is complete once the runner has exited
  } catch (const std::exception& error) {
    std::cerr << "referee: " << error.what() << "\n";
  }
  return status;
}
