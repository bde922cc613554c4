#include "common/run_protocol.h"

#include <cmath>
#include <exception>

namespace cudalabs {

void TimedSession::add(TimedRun run) {
  runs_.push_back(std::make_shared<const TimedRun>(std::move(run)));
}

void TimedSession::add_host(HostTimedRun run) {
  host_runs_.push_back(std::move(run));
}

std::vector<HostMedian> TimedSession::time_on_host() const {
  std::vector<HostMedian> medians;
  for (const HostTimedRun& run : host_runs_)
    medians.push_back(cudalabs::time_on_host(run, timing_.repetitions));
  return medians;
}

void TimedSession::register_benchmarks() const {
  for (const std::shared_ptr<const TimedRun>& run : runs_) {
    register_timed_benchmark(
        run->name,
        [run, warmups = timing_.warmups](benchmark::State& state) {
          time_iterations(
              state, [&](cudaStream_t stream, int) { run->launch(stream); }, run->flops, run->bytes,
              warmups);
          if (run->counters) run->counters(state);
        },
        timing_);
  }
}

const std::map<std::string, Recheck>& TimedSession::recheck_all(std::ostream& out) {
  std::vector<std::pair<std::string, std::function<Recheck()>>> rechecks;
  for (const std::shared_ptr<const TimedRun>& run : runs_)
    if (run->recheck) rechecks.emplace_back(run->name, run->recheck);
  for (const HostTimedRun& run : host_runs_)
    if (run.recheck) rechecks.emplace_back(run.name, run.recheck);
  if (!rechecks.empty())
    out << "recheck: each timed variant again in its timed buffers, fresh inputs\n";
  for (const auto& [name, recheck] : rechecks) {
    Recheck result;
    try {
      result = recheck();
    } catch (const std::exception& error) {
      result = {false, std::string("the recheck failed: ") + error.what()};
    }
    out << "  " << name << ": " << result.message << (result.passed ? "" : " (after timing)")
        << "\n";
    rechecks_[name] = result;
  }
  return rechecks_;
}

const Recheck* TimedSession::recheck_of(const std::string& name) const {
  const auto it = rechecks_.find(name);
  return it == rechecks_.end() ? nullptr : &it->second;
}

bool TimedSession::rechecks_passed() const {
  for (const auto& [name, recheck] : rechecks_)
    if (!recheck.passed) return false;
  return true;
}

std::optional<BenchmarkMedian> median_of(const std::map<std::string, BenchmarkMedian>& medians,
                                         const std::string& name) {
  const auto it = medians.find(name);
  if (it == medians.end()) return std::nullopt;
  return it->second;
}

double milliseconds_of(const std::optional<BenchmarkMedian>& median) {
  return median ? median->real_time_ms : std::nan("");
}

double counter_of(const std::optional<BenchmarkMedian>& median, const std::string& key) {
  if (!median) return std::nan("");
  const auto it = median->counters.find(key);
  return it == median->counters.end() ? std::nan("") : it->second;
}

CheckOutcome combine_outcomes(CheckOutcome first, CheckOutcome second) {
  if (first == CheckOutcome::kNotImplemented && second == CheckOutcome::kNotImplemented)
    return first;
  if (first == CheckOutcome::kPassed && second == CheckOutcome::kPassed) return first;
  return CheckOutcome::kFailed;
}

std::string check_cell(const std::string& checked, const Recheck* after_timing,
                       const std::string& skipped) {
  if (!skipped.empty()) return "skipped";
  if (after_timing != nullptr && !after_timing->passed) return "FAIL after timing";
  return checked;
}

std::string check_cell(CheckOutcome checked, const Recheck* after_timing,
                       const std::string& skipped) {
  return check_cell(outcome_text(checked), after_timing, skipped);
}

}  // namespace cudalabs
