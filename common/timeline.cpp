#include "common/timeline.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <stdexcept>

namespace cudalabs {

Timeline::Timeline() : origin_(std::chrono::steady_clock::now()) {}

double Timeline::now_us() const {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - origin_)
      .count();
}

void Timeline::add(Span span) {
  if (span.name.empty()) throw std::invalid_argument("timeline: a span needs a name");
  if (!(span.duration_us >= 0.0)) {
    throw std::invalid_argument("timeline: span '" + span.name + "' has a negative duration");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  spans_.push_back(std::move(span));
}

void Timeline::name_process(int process, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  process_names_.emplace_back(process, name);
}

std::vector<Timeline::Span> Timeline::spans() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return spans_;
}

std::string Timeline::json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json events = nlohmann::json::array();
  // Track names: Perfetto and chrome://tracing show a thread id's name from a metadata event.
  std::map<std::pair<int, std::string>, int> thread_ids;
  for (const auto& [process, name] : process_names_) {
    events.push_back(
        {{"ph", "M"}, {"name", "process_name"}, {"pid", process}, {"args", {{"name", name}}}});
  }
  for (const Span& span : spans_) {
    const auto key = std::make_pair(span.process, span.thread);
    auto [it, fresh] = thread_ids.try_emplace(key, static_cast<int>(thread_ids.size()) + 1);
    if (fresh) {
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", span.process},
                        {"tid", it->second},
                        {"args", {{"name", span.thread}}}});
    }
    events.push_back({{"ph", "X"},
                      {"name", span.name},
                      {"cat", span.category},
                      {"pid", span.process},
                      {"tid", it->second},
                      {"ts", span.start_us},
                      {"dur", span.duration_us}});
  }
  return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump(1);
}

void Timeline::write(const std::string& path) const {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("--timeline: '" + path + "' cannot be written");
  file << json() << "\n";
  if (!file) throw std::runtime_error("--timeline: writing '" + path + "' failed");
}

}  // namespace cudalabs
