/// @file host_timing.h
/// @brief The kit's second clock: runs timed by the host's wall clock, for work that CUDA events on
/// one stream cannot see whole (lab 10's generator on several GPUs, one host thread or MPI rank
/// each). They follow the same protocol as the event-timed runs (run_protocol.h): timed, then
/// checked again in the buffers they were timed in (TimedSession::recheck_all), then recorded in
/// Google Benchmark's shape with the key "rechecks".
#pragma once

#include "common/driver_record.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cudalabs {

/// One run timed by the host's clock.
struct HostTimedRun {
  std::string name;  ///< the benchmark's name: "lab10/threads/n1000x2g"
  /// One run, as timed; returns its wall-clock seconds (an MPI program: rank 0's, from a barrier).
  /// Every rank of an MPI program makes the same calls, so the count is fixed: no minimum time.
  std::function<double()> run;
  std::map<std::string, double> fields;  ///< written into its record entry ("num", "gpus")
  /// Counters per second of the median: "images_per_s" -> images per run.
  std::map<std::string, double> per_run;
  /// The check after timing, as TimedRun::recheck; empty for a reference.
  std::function<Recheck()> recheck;
};

/// The median of one host-timed run.
struct HostMedian {
  std::string name;                          ///< HostTimedRun::name
  double seconds = 0.0;                      ///< median wall-clock seconds of the timed runs
  int repetitions = 0;                       ///< timed runs the median is taken over
  std::map<std::string, double> fields;      ///< HostTimedRun::fields
  std::map<std::string, double> per_second;  ///< HostTimedRun::per_run over `seconds`
};

/// One untimed run (the warm-up), then `repetitions` timed ones: their median.
HostMedian time_on_host(const HostTimedRun& run, int repetitions);

/// The record of host-timed runs in Google Benchmark's shape: {"context": `context`, "benchmarks":
/// one median aggregate per run ("<name>_median", run_name, real_time in ms, repetitions, the
/// fields, integral ones as integers, and the counters), "rechecks": as add_rechecks_to_record}.
nlohmann::json host_record(const std::map<std::string, std::string>& context,
                           const std::vector<HostMedian>& medians,
                           const std::map<std::string, Recheck>& rechecks);

}  // namespace cudalabs
