/// @file timeline.h
/// @brief A run's timeline in the Chrome trace event format (chrome://tracing, Perfetto): named
/// spans on tracks (a process per GPU, a thread per stream or host thread), on one microsecond
/// axis.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace cudalabs {

/// Collects spans from any thread and writes them as a trace file. The GPU side converts its CUDA
/// events to this clock itself (lab09::Pipeline): Timeline holds no CUDA state.
class Timeline {
 public:
  /// One span: a named interval on a track.
  struct Span {
    std::string name;          ///< e.g. "tconv2 b3"
    std::string category;      ///< e.g. "kernel", "copy", "host"
    int process = 0;           ///< the track group: one per GPU
    std::string thread;        ///< the track: a stream or a host thread
    double start_us = 0.0;     ///< microseconds from the timeline's start
    double duration_us = 0.0;  ///< microseconds
  };

  Timeline();

  /// Microseconds since the timeline was made (the spans' axis).
  double now_us() const;
  /// Adds a span; throws std::invalid_argument for a negative duration or an empty name.
  void add(Span span);
  /// Names the track group of `process` (e.g. "GPU 0: NVIDIA H100 80GB HBM3").
  void name_process(int process, const std::string& name);
  /// The spans so far, in the order they were added.
  std::vector<Span> spans() const;
  /// The trace as JSON text: {"traceEvents": [...], "displayTimeUnit": "ms"}.
  std::string json() const;
  /// Writes json() to `path`; throws std::runtime_error naming the path when it cannot.
  void write(const std::string& path) const;

 private:
  std::chrono::steady_clock::time_point origin_;
  mutable std::mutex mutex_;
  std::vector<Span> spans_;
  std::vector<std::pair<int, std::string>> process_names_;
};

}  // namespace cudalabs
