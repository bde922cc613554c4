#include "common/benchmark_support.h"

#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/event_timer.h"
#include "common/git_commit.h"
#include "common/json_record.h"

#include <algorithm>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <ostream>
#include <sstream>

namespace cudalabs {

std::string built_from_commit() {
  return kGitCommit;
}

std::map<std::string, std::string> run_context(const DeviceInfo& device, int argc,
                                               const char* const* argv, std::uint64_t seed) {
  return {{"device", device.name},
          {"compute_capability", std::to_string(device.major) + "." + std::to_string(device.minor)},
          {"sm_count", std::to_string(device.sm_count)},
          {"sm_clock_max_mhz", std::to_string(device.sm_clock_khz / 1000)},
          {"driver", DeviceInfo::version_text(device.driver_version)},
          {"cuda_runtime", DeviceInfo::version_text(device.runtime_version)},
          {"command", recorded_command(argc, argv)},
          {"git_commit", kGitCommit},
          {"seed", std::to_string(seed)}};
}

void add_benchmark_context(const DeviceInfo& device, int argc, char** argv, std::uint64_t seed) {
  for (const auto& [key, value] : run_context(device, argc, argv, seed))
    benchmark::AddCustomContext(key, value);
}

void time_iterations(benchmark::State& state, const std::function<void(cudaStream_t, int)>& launch,
                     double flops, double bytes, int warmups) {
  cudaStream_t stream = nullptr;
  int run = 0;
  for (int i = 0; i < warmups; ++i) launch(stream, run++);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  // Each launch between two events of its own, the launches back to back: the events are read a
  // batch at a time, so the GPU never idles while the host waits for one launch to finish, and the
  // host's launch latency is timed for no launch. Google Benchmark only sums the iterations' times.
  constexpr benchmark::IterationCount kBatch = 32;
  std::vector<EventTimer> timers(static_cast<std::size_t>(std::min(kBatch, state.max_iterations)));
  std::size_t pending = 0;
  benchmark::IterationCount done = 0;
  double total_seconds = 0.0;
  for (auto _ : state) {
    timers[pending].start(stream);
    launch(stream, run++);
    timers[pending].stop(stream);
    ++pending;
    ++done;
    double seconds = 0.0;
    if (pending == timers.size() || done == state.max_iterations) {
      for (std::size_t i = 0; i < pending; ++i) seconds += timers[i].elapsed_ms() * 1e-3;
      pending = 0;
    }
    state.SetIterationTime(seconds);
    total_seconds += seconds;
  }
  const double launches = static_cast<double>(state.iterations());
  if (total_seconds > 0.0) {
    if (flops > 0.0) state.counters["gflops"] = flops * launches / total_seconds * 1e-9;
    if (bytes > 0.0) state.counters["gbytes_per_s"] = bytes * launches / total_seconds * 1e-9;
  }
}

benchmark::internal::Benchmark* register_timed_benchmark(
    const std::string& name, std::function<void(benchmark::State&)> body,
    const TimingOptions& options) {
  return benchmark::RegisterBenchmark(
             name.c_str(), [body = std::move(body)](benchmark::State& state) { body(state); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Repetitions(options.repetitions)
      ->MinTime(options.min_time_s)
      ->ReportAggregatesOnly(true);
}

void initialize_benchmark(std::vector<std::string> benchmark_args) {
  // Google Benchmark keeps argv[0] (the "executable" of the JSON context), so the strings must
  // outlive this call.
  static std::vector<std::string> storage;
  storage = std::move(benchmark_args);
  // The record's "executable": relative to the repository, like its command.
  if (!storage.empty()) storage[0] = recorded_path(storage[0]);
  std::vector<char*> argv;
  for (std::string& arg : storage) argv.push_back(arg.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) {
    throw FlagError(std::string("'") + argv[1] +
                    "': not a Google Benchmark flag, or not a value it takes (see --help)");
  }
}

namespace {

bool is_benchmark_flag(const std::string& argument) {
  return argument.rfind("--benchmark_", 0) == 0;
}

// Values for which Google Benchmark prints its usage and exits 0 instead of saying what is wrong.
void check_benchmark_values(const std::string& argument) {
  const auto check = [&](const std::string& flag, std::initializer_list<const char*> allowed) {
    const std::string prefix = flag + "=";
    if (argument.rfind(prefix, 0) != 0) return;
    const std::string value = argument.substr(prefix.size());
    std::string list;
    for (const char* item : allowed) {
      if (value == item) return;
      list += (list.empty() ? "" : ", ") + std::string(item);
    }
    throw FlagError(flag + ": invalid value '" + value + "' (expected " + list + ")");
  };
  check("--benchmark_format", {"console", "json", "csv"});
  check("--benchmark_out_format", {"json", "console", "csv"});
  check("--benchmark_time_unit", {"ns", "us", "ms", "s"});
  if (argument == "--benchmark_color=")
    throw FlagError("--benchmark_color: invalid value '' (expected auto, true or false)");
}

}  // namespace

std::vector<std::string> parse_flags_with_benchmark(CLI::App& app, int argc, char** argv) {
  app.footer(
      "Google Benchmark flags (--benchmark_format=json, --benchmark_out=FILE, ...) are passed "
      "through.");
  std::vector<std::string> benchmark_args = parse_flags(app, argc, argv, is_benchmark_flag);
  // Google Benchmark reads its flags again in initialize_benchmark, with --benchmark_out added
  // once the device is known; reading them now answers a bad one before anything runs. Custom
  // context (--benchmark_context) is left to that reading: Google Benchmark adds it as it reads.
  std::vector<std::string> check = {benchmark_args[0]};
  for (std::size_t i = 1; i < benchmark_args.size(); ++i) {
    check_benchmark_values(benchmark_args[i]);
    if (benchmark_args[i].rfind("--benchmark_context=", 0) != 0) check.push_back(benchmark_args[i]);
  }
  std::vector<char*> check_argv;
  for (std::string& arg : check) check_argv.push_back(arg.data());
  int check_argc = static_cast<int>(check_argv.size());
  {
    // Google Benchmark explains a bad value on std::cerr too: the line below says it once.
    std::ostringstream explained;
    std::streambuf* saved = std::cerr.rdbuf(explained.rdbuf());
    benchmark::Initialize(&check_argc, check_argv.data());
    std::cerr.rdbuf(saved);
  }
  if (check_argc > 1) {
    throw FlagError(std::string("'") + check_argv[1] +
                    "': not a Google Benchmark flag, or not a value it takes (see --help)");
  }
  return benchmark_args;
}

bool benchmark_stdout_is_machine_readable(const std::vector<std::string>& benchmark_args) {
  for (const std::string& arg : benchmark_args) {
    if (arg == "--benchmark_format=json") return true;
  }
  return false;
}

namespace {

// Google Benchmark appends its settings to every name ("/min_time:0.100/repeats:5/manual_time");
// the recorded names are the architecture page's labNN/<variant>/<problem>, so the settings are
// dropped (they are in each entry's own fields: repetitions, time_unit, ...).
std::vector<benchmark::BenchmarkReporter::Run> with_plain_names(
    std::vector<benchmark::BenchmarkReporter::Run> runs) {
  for (auto& run : runs) {
    benchmark::BenchmarkName& name = run.run_name;
    name.min_time.clear();
    name.min_warmup_time.clear();
    name.iterations.clear();
    name.repetitions.clear();
    name.time_type.clear();
    name.threads.clear();
  }
  return runs;
}

// The JSON reporter with plain names, for --benchmark_out and --benchmark_format=json.
class PlainNamesJsonReporter : public benchmark::JSONReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    JSONReporter::ReportRuns(with_plain_names(runs));
  }
};

bool format_requested(const std::vector<std::string>& args) {
  for (const std::string& arg : args)
    if (arg.rfind("--benchmark_format=", 0) == 0) return true;
  return false;
}

// Forwards to an optional display reporter and keeps the median of every benchmark.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  CollectingReporter(std::unique_ptr<benchmark::BenchmarkReporter> display, std::ostream& progress)
      : display_(std::move(display)), progress_(progress) {}

  bool ReportContext(const Context& context) override {
    return display_ ? display_->ReportContext(context) : true;
  }

  void ReportRuns(const std::vector<Run>& original) override {
    const std::vector<Run> runs = with_plain_names(original);
    if (display_) display_->ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "median") continue;
      BenchmarkMedian median;
      median.real_time_ms = run.GetAdjustedRealTime();
      for (const auto& [name, counter] : run.counters) median.counters[name] = counter.value;
      const std::string name = run.run_name.str();
      medians_[name] = median;
      if (!display_)
        progress_ << "  timed " << name << ": " << median.real_time_ms << " ms (median)\n"
                  << std::flush;
    }
  }

  void Finalize() override {
    if (display_) display_->Finalize();
  }

  std::map<std::string, BenchmarkMedian>& medians() { return medians_; }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  std::ostream& progress_;
  std::map<std::string, BenchmarkMedian> medians_;
};

std::unique_ptr<benchmark::BenchmarkReporter> display_reporter_for(
    const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--benchmark_format=json") return std::make_unique<PlainNamesJsonReporter>();
  }
  if (format_requested(args)) return std::make_unique<benchmark::ConsoleReporter>();
  return nullptr;
}

}  // namespace

std::map<std::string, BenchmarkMedian> run_benchmarks(
    const std::vector<std::string>& benchmark_args, std::ostream& progress) {
  CollectingReporter reporter(display_reporter_for(benchmark_args), progress);
  // A JSON file (--benchmark_out, JSON being the default --benchmark_out_format) gets plain names
  // too; other file formats keep Google Benchmark's own reporter.
  bool json_file = false, other_format = false;
  for (const std::string& arg : benchmark_args) {
    if (arg.rfind("--benchmark_out=", 0) == 0) json_file = true;
    if (arg.rfind("--benchmark_out_format=", 0) == 0 && arg != "--benchmark_out_format=json")
      other_format = true;
  }
  PlainNamesJsonReporter file_reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter,
                                    json_file && !other_format ? &file_reporter : nullptr);
  benchmark::ClearRegisteredBenchmarks();
  return std::move(reporter.medians());
}

}  // namespace cudalabs
