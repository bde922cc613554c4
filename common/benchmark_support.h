/// @file benchmark_support.h
/// @brief Google Benchmark with CUDA-event timing, medians, and the context every recorded run
/// carries.
///
/// Each benchmark times one launch per iteration between two CUDA events and hands that time to
/// Google Benchmark as manual time. Repetitions give several independent measurements; the median
/// is what tables and plots use. `--benchmark_out=file.json` writes everything with the context
/// the architecture page asks for (device, driver, runtime, command, git commit).
#pragma once

#include "common/device_info.h"

#include <CLI/CLI.hpp>

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cudalabs {

/// How each benchmark is repeated.
///
/// The defaults keep a whole `make run` within three minutes: three repetitions of at least 50 ms
/// each (many launches of a fast kernel, one of a slow one), and one untimed launch first, the
/// first repetition's search for its launch count warming the GPU further. `make bench` and the
/// records ask for more (--repetitions 10).
struct TimingOptions {
  int repetitions = 3;       ///< independent repetitions; the median of their means is reported
  double min_time_s = 0.05;  ///< minimum timed seconds per repetition (at least one launch)
  int warmups = 1;           ///< untimed launches before each repetition's first timed one
};

/// The context of the architecture page's 'Recorded results' every recorded run carries, as text:
/// device, driver, cuda_runtime, command, git_commit, plus the SM count, clocks and the run's seed.
/// (Google Benchmark adds the date; a record written otherwise adds utc_timestamp().)
std::map<std::string, std::string> run_context(const DeviceInfo& device, int argc,
                                               const char* const* argv, std::uint64_t seed);

/// Adds run_context() to Google Benchmark's context.
void add_benchmark_context(const DeviceInfo& device, int argc, char** argv, std::uint64_t seed);

/// Times one launch per benchmark iteration with CUDA events around it, the launches back to back
/// (the events read a batch at a time), and hands Google Benchmark the times as manual time. Sets
/// the counter `gflops` (when flops > 0) and `gbytes_per_s` (when bytes > 0) from the total event
/// time of the repetition.
/// @param state   the benchmark state
/// @param launch  enqueues one run on the stream; the int counts runs, for rotating input sets
/// @param flops   useful floating-point operations per run
/// @param bytes   bytes moved per run (for bandwidth benchmarks)
/// @param warmups untimed runs first
void time_iterations(benchmark::State& state, const std::function<void(cudaStream_t, int)>& launch,
                     double flops, double bytes, int warmups);

/// Registers a benchmark timed manually (UseManualTime), in milliseconds, with the repetitions and
/// minimum time of `options`, reporting aggregates (mean, median, stddev, cv) only.
benchmark::internal::Benchmark* register_timed_benchmark(
    const std::string& name, std::function<void(benchmark::State&)> body,
    const TimingOptions& options);

/// The median aggregate of one benchmark.
struct BenchmarkMedian {
  double real_time_ms = 0.0;               ///< median manual time per launch, milliseconds
  std::map<std::string, double> counters;  ///< median of each counter
};

/// Initialises Google Benchmark with `benchmark_args` (argv[0] first, then --benchmark_* flags),
/// throwing FlagError for arguments neither CLI11 nor Google Benchmark knows.
void initialize_benchmark(std::vector<std::string> benchmark_args);

/// parse_flags (common/cli.h) for a program timed by Google Benchmark: Google Benchmark's own
/// flags (--benchmark_format=json, --benchmark_out=FILE, ...) pass through and are checked by
/// Google Benchmark at once (FlagError for one it does not take), every other unknown argument is
/// refused; the help says so. Returns argv[0] and those flags, for initialize_benchmark.
std::vector<std::string> parse_flags_with_benchmark(CLI::App& app, int argc, char** argv);

/// The git commit the binaries were built from (cmake/WriteGitCommit.cmake), for records written by
/// hand.
std::string built_from_commit();

/// True when --benchmark_format asked for machine-readable output on stdout (json), in which
/// case the drivers print their own tables to stderr.
bool benchmark_stdout_is_machine_readable(const std::vector<std::string>& benchmark_args);

/// Runs every registered benchmark. Google Benchmark's own display goes to stdout only when
/// --benchmark_format was given; otherwise one progress line per benchmark goes to `progress`.
/// --benchmark_out is honoured as usual. Returns each benchmark's median, keyed by its name.
std::map<std::string, BenchmarkMedian> run_benchmarks(
    const std::vector<std::string>& benchmark_args, std::ostream& progress);

}  // namespace cudalabs
