#include "common/host_timing.h"

#include "common/event_timer.h"

#include <cmath>
#include <cstdint>

namespace cudalabs {

HostMedian time_on_host(const HostTimedRun& run, int repetitions) {
  run.run();  // warm-up: first-touch pages, lazy module loads, thread start-up
  std::vector<double> seconds;
  for (int r = 0; r < repetitions; ++r) seconds.push_back(run.run());
  HostMedian result{run.name, median(seconds), repetitions, run.fields, {}};
  for (const auto& [key, amount] : run.per_run) result.per_second[key] = amount / result.seconds;
  return result;
}

namespace {

// A count stays an integer in the record (num 1000, not 1000.0).
nlohmann::json field_value(double value) {
  if (std::trunc(value) == value && std::fabs(value) < 9.0e15)
    return static_cast<std::int64_t>(value);
  return value;
}

}  // namespace

nlohmann::json host_record(const std::map<std::string, std::string>& context,
                           const std::vector<HostMedian>& medians,
                           const std::map<std::string, Recheck>& rechecks) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const HostMedian& m : medians) {
    nlohmann::json entry = {{"name", m.name + "_median"},
                            {"run_name", m.name},
                            {"run_type", "aggregate"},
                            {"aggregate_name", "median"},
                            {"repetitions", m.repetitions},
                            {"real_time", m.seconds * 1e3},
                            {"time_unit", "ms"}};
    for (const auto& [key, value] : m.fields) entry[key] = field_value(value);
    for (const auto& [key, value] : m.per_second) entry[key] = value;
    benchmarks.push_back(entry);
  }
  return {{"context", context}, {"benchmarks", benchmarks}, {"rechecks", rechecks_json(rechecks)}};
}

}  // namespace cudalabs
