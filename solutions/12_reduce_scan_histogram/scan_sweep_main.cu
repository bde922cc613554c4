// lab12_scan_sweep: configurations of the look-back scan (lookback_scan.cuh's LookbackTuning: the
// tile's shape, the occupancy it asks for, how long the look-back sleeps before and between polls)
// timed against CUB's DeviceScan::InclusiveSum and a cudaMemcpy of the same bytes, in one process.
// It answers "which configuration should scan_lookback run, and is it at least as fast as CUB?"
// with measurements.
//
//   lab12_scan_sweep [--repetitions 30] [--warmups 3] [--output FILE.json]
//
// Every candidate is checked first, bit for bit against CUB on the GPU (the output poisoned
// twice, with two patterns, so that an element never written cannot pass), at the timed sizes
// (2^24, 2^26, 2^28 and an odd count with both arrays off 16-byte alignment, by different
// amounts) and at small counts around every tile size with aligned, equally and unequally
// misaligned arrays; CUB itself is checked against the CPU scan at the timed sizes. A failure
// exits 1. Timing is interleaved: one measurement of every row per round (a few launches between
// two CUDA events), so that a drifting clock hits every row alike; the table shows medians. After
// timing, every candidate is checked again in the buffers it was timed in, on a fresh input (CUB's
// scan of it the reference): one wrong there is "FAIL after timing" and exits 1.
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/device_info.h"
#include "common/json_record.h"
#include "common/random_fill.h"
#include "scan_sweep_arrays.cuh"
#include "scan_sweep_candidates.cuh"
#include "scan_sweep_timing.cuh"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using lab12::sweep::Arrays;
using lab12::sweep::Candidate;
using lab12::sweep::Problem;

struct Options {
  int repetitions = 30;
  int warmups = 3;
  std::string output;
};

// Every candidate checked again in the buffers it was timed in, on a fresh input drawn into them
// (CUB's scan of it the reference): one line per failure and one per problem; `records` (the
// problem's) and `rechecks` take each verdict. Returns the failures.
int recheck_problem(Arrays& arrays, const std::vector<Candidate>& all, std::uint64_t seed,
                    nlohmann::json& records, nlohmann::json& rechecks) {
  const Problem problem = arrays.problem;
  arrays.prepare(problem, cudalabs::derive_seed(seed, "recheck " + problem.label()));
  int wrong = 0;
  for (const Candidate& c : all) {
    const std::string failure = arrays.check(c);
    const std::string name = "lab12_scan_sweep/" + c.name + "/" + problem.label();
    rechecks[name] = {
        {"passed", failure.empty()},
        {"message", "timed buffers, fresh input: " +
                        (failure.empty() ? "equal to CUB's under both poisons: PASS" : failure)}};
    if (failure.empty()) continue;
    std::printf("FAIL after timing %s: %s\n", c.name.c_str(), failure.c_str());
    for (nlohmann::json& record : records)
      if (record["name"] == name) record["check"] = "FAIL after timing";
    ++wrong;
  }
  std::printf(
      "recheck %s: %zu of %zu candidates right again in their timed buffers (fresh input)\n",
      problem.label().c_str(), all.size() - wrong, all.size());
  return wrong;
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{"Times configurations of lab 12's look-back scan against CUB's DeviceScan"};
  cudalabs::add_integer_flag(app, "--repetitions", options.repetitions, 1, 1000,
                             "Interleaved rounds of timing; the table shows medians");
  cudalabs::add_integer_flag(app, "--warmups", options.warmups, 0, 100,
                             "Untimed measurements of every row first");
  app.add_option("--output", options.output, "Write every measurement to FILE as JSON")
      ->type_name("FILE");
  cudalabs::parse_flags(app, argc, argv);
  if (!options.output.empty()) cudalabs::write_json_file(options.output, nlohmann::json::object());
  cudalabs::require_gpu();

  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  const std::uint64_t seed = cudalabs::run_seed();
  std::printf("%s: %s (sm_%d%d, %d SMs), seed %llu, commit %s\n", cudalabs::program_name().c_str(),
              device.name.c_str(), device.major, device.minor, device.sm_count,
              static_cast<unsigned long long>(seed), cudalabs::built_from_commit().c_str());

  const std::vector<Candidate> all = lab12::sweep::candidates();
  std::size_t largest = 0;
  for (const Problem& p : lab12::sweep::kTimedProblems) largest = std::max(largest, p.count);
  cudalabs::require_device_memory(3 * 4 * (largest + 4) + lab12::sweep::workspace_bytes(largest),
                                  "lab12_scan_sweep's problems");
  Arrays arrays(largest);

  // Checks: every candidate at the small counts, then at the timed problems (CUB against the CPU
  // there too).
  int failures = 0;
  std::size_t checks = 0;
  auto check_all = [&] {
    for (const Candidate& c : all) {
      const std::string failure = arrays.check(c);
      ++checks;
      if (!failure.empty()) {
        std::printf("FAIL %s: %s\n", c.name.c_str(), failure.c_str());
        ++failures;
      }
    }
  };
  for (const std::size_t count : lab12::sweep::kCheckedCounts) {
    for (const auto& offsets : lab12::sweep::kCheckedOffsets) {
      arrays.prepare({count, offsets[0], offsets[1]},
                     cudalabs::derive_seed(seed, "small " + std::to_string(count)));
      arrays.check_cub_on_cpu();
      check_all();
    }
  }
  nlohmann::json benchmarks = nlohmann::json::array(), rechecks = nlohmann::json::object();
  int failed_after_timing = 0;
  for (const Problem& p : lab12::sweep::kTimedProblems) {
    arrays.prepare(p, cudalabs::derive_seed(seed, p.label()));
    arrays.check_cub_on_cpu();
    check_all();
    if (failures == 0) {
      nlohmann::json records =
          lab12::sweep::time_problem(arrays, all, options.warmups, options.repetitions);
      failed_after_timing += recheck_problem(arrays, all, seed, records, rechecks);
      for (nlohmann::json& record : records) benchmarks.push_back(std::move(record));
    }
  }
  std::printf(
      "\nchecks: %zu of %zu passed (every candidate against CUB, bit for bit; CUB "
      "against the CPU)\n",
      checks - failures, checks);

  if (!options.output.empty()) {
    nlohmann::json context = cudalabs::run_context(device, argc, argv, seed);
    context.update(nlohmann::json{
        {"date", cudalabs::utc_timestamp()},
        {"repetitions", options.repetitions},
        {"timing", "CUDA events around a few launches back to back; rounds interleaved, medians"},
        {"checks_passed", checks - failures},
        {"checks", checks}});
    cudalabs::write_json_file(
        options.output, {{"context", context}, {"benchmarks", benchmarks}, {"rechecks", rechecks}});
  }
  return failures == 0 && failed_after_timing == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
