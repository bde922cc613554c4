/// @file grader/referee/workload.h
/// @brief What the referee times and profiles: a problem of one variant, put into the runner as
/// several fresh input sets (never the same twice), made there, and read back and checked set by
/// set against a reference of the referee's own. Timed calls and checked calls are the same calls.
#pragma once

#include "grader/call.h"
#include "grader/referee/memory_floor.h"
#include "grader/referee/remote_runner.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace grader::referee {

class Workload {
 public:
  virtual ~Workload() = default;
  /// The problem, for records: "2048x2048x2048".
  virtual std::string problem() const = 0;
  /// Useful work of all the calls of the last prepare(), in `unit_scale` units of the rate: FLOP,
  /// bytes, images (sets may differ: lab 00's FMA chains change length so no result can be kept).
  virtual double prepared_work() const = 0;
  /// "GFLOP/s", "GB/s", "images/s".
  virtual std::string unit() const = 0;
  virtual double unit_scale() const = 0;
  /// Bytes of device memory one input set takes in the runner (to size the sets of a round).
  virtual std::size_t bytes_per_set() const = 0;
  /// Puts `sets` fresh input sets (outputs poisoned) into the runner; the calls, one per set.
  virtual std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) = 0;
  /// Reads back every set of the last prepare() and checks it; throws std::runtime_error naming the
  /// first wrong one.
  virtual void check(RemoteRunner& runner) = 0;
  /// Facts of the problem for the technique rules (m, n, k, flops, bytes...), as name -> value:
  /// of the calls of the last prepare() where they differ from set to set.
  virtual std::vector<std::pair<std::string, double>> facts() const = 0;
  /// A seed for inputs the variants of one timed pair (or one run of probes) may share, given
  /// before the first prepare(): both sides of a pair get the same. A workload may draw from it
  /// what costs the referee most to make (lab 12's pools, each variant still reading windows of its
  /// own); by default it draws everything from prepare()'s seeds.
  virtual void share_inputs(std::uint64_t seed) { (void)seed; }
  /// Bytes one call of the last prepare() must move between DRAM and the SMs at the least (its
  /// inputs read once, its outputs written once): a round faster than the memory can move them,
  /// less what the L2 holds, is refused (memory_floor.h). None: no floor (a problem bound by
  /// arithmetic).
  virtual CallBytes least_bytes_per_call() const { return {}; }
};

/// The lab's workload of `variant`, with the lab's problem flags (`args`, e.g. {"--size", "2048"}).
/// Each referee links one definition; nullptr when the lab has no timed or profiled problem.
std::unique_ptr<Workload> make_workload(const std::string& variant,
                                        const std::vector<std::string>& args);

}  // namespace grader::referee
