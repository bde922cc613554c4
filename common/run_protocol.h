/// @file run_protocol.h
/// @brief The protocol every lab driver follows: check, time, check again in the timed buffers,
/// report. A driver hands its timed launches here as TimedRun (the launch and, for the lab's own
/// variants, how to check it again); the session times them through Google Benchmark and then
/// rechecks each one, so that a kernel right when checked but wrong where it was timed (it skips
/// work it has "already done" for these pointers, or goes wrong after its first call) fails the
/// run.
#pragma once

#include "common/benchmark_support.h"
#include "common/driver_record.h"
#include "common/gemm_check.h"
#include "common/host_timing.h"

#include <cuda_runtime.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace cudalabs {

/// One timed launch: a lab's variant, or a reference timed beside it (cuBLAS, CUB, cudaMemcpy).
struct TimedRun {
  std::string name;  ///< the benchmark's name: "lab12/sum_atomic/sum_n268435456"
  /// Enqueues one run on the stream, in the buffers it is timed in.
  std::function<void(cudaStream_t)> launch;
  double flops = 0.0;  ///< useful floating-point operations per run (the gflops counter)
  double bytes = 0.0;  ///< bytes moved per run (the gbytes_per_s counter)
  /// More counters, set after the timing (registers, occupancy, ...); may be empty.
  std::function<void(benchmark::State&)> counters;
  /// The check after timing: fresh inputs drawn into the timed buffers, the outputs poisoned, one
  /// launch exactly as timed, the outputs against the reference. Empty for a reference, which is
  /// not the lab's to check.
  std::function<Recheck()> recheck;
};

/// The timed runs of one driver, their timing and their rechecks.
class TimedSession {
 public:
  /// A session timing every run with `timing` (repetitions, minimum time).
  explicit TimedSession(TimingOptions timing) : timing_(timing) {}

  /// Adds a run; it is timed in the order added.
  void add(TimedRun run);

  /// Adds a run timed by the host's clock (host_timing.h); rechecked with the others.
  void add_host(HostTimedRun run);

  /// Times every host-timed run in the order added (time_on_host, --repetitions each).
  std::vector<HostMedian> time_on_host() const;

  /// Registers every run with Google Benchmark (run_benchmarks times them).
  void register_benchmarks() const;

  /// Checks every run (event-timed, then host-timed) that has a recheck again, one line each on
  /// `out`; a recheck that throws fails with what it threw. Returns the results by benchmark name
  /// (also kept: recheck_of).
  const std::map<std::string, Recheck>& recheck_all(std::ostream& out);

  /// The recheck of `name`, or null when it had none (a reference, or not timed).
  const Recheck* recheck_of(const std::string& name) const;

  /// True when every recheck passed (and when there was none).
  bool rechecks_passed() const;

 private:
  TimingOptions timing_;
  std::vector<std::shared_ptr<const TimedRun>> runs_;  // shared with the registered benchmarks
  std::vector<HostTimedRun> host_runs_;
  std::map<std::string, Recheck> rechecks_;
};

/// The median of the benchmark `name`, when it was timed.
std::optional<BenchmarkMedian> median_of(const std::map<std::string, BenchmarkMedian>& medians,
                                         const std::string& name);

/// A median's time in milliseconds, NaN when there is none.
double milliseconds_of(const std::optional<BenchmarkMedian>& median);

/// A median's counter `key` ("gflops", "gbytes_per_s"), NaN when there is none.
double counter_of(const std::optional<BenchmarkMedian>& median, const std::string& key);

/// One verdict of two checks of the same variant: both not implemented stays not implemented, both
/// passed passes, anything else fails.
CheckOutcome combine_outcomes(CheckOutcome first, CheckOutcome second);

/// A table's check cell: "skipped" when `skipped` gives a reason, "FAIL after timing" when the
/// recheck failed, else `checked` (the verdict of the checks before timing: PASS, FAIL, ...).
std::string check_cell(const std::string& checked, const Recheck* after_timing,
                       const std::string& skipped = "");

/// check_cell for a CheckOutcome.
std::string check_cell(CheckOutcome checked, const Recheck* after_timing,
                       const std::string& skipped = "");

}  // namespace cudalabs
