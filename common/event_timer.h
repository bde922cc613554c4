/// @file event_timer.h
/// @brief Times device work with CUDA events.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace cudalabs {

/// A pair of CUDA events around a region of a stream. Events are recorded on the device, so the
/// time is the GPU's own, free of host launch overhead and of the host clock.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  /// Records the start event on `stream`.
  void start(cudaStream_t stream = nullptr);
  /// Records the stop event on `stream`.
  void stop(cudaStream_t stream = nullptr);
  /// Waits for the stop event and returns the time between the two events in milliseconds.
  float elapsed_ms();

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

/// Runs `launch` `warmups` times untimed, then `repetitions` times each between its own pair of
/// events, and returns every timed run in milliseconds.
/// @param launch       enqueues the work on the given stream; the argument is the repetition index
///                     (warm-ups count too), which callers use to rotate among input sets
/// @param warmups      untimed runs first (module load, caches, clocks)
/// @param repetitions  timed runs, at least 1
/// @param stream       the stream the work is enqueued on
std::vector<double> time_each_run_ms(const std::function<void(cudaStream_t, int)>& launch,
                                     int warmups, int repetitions, cudaStream_t stream = nullptr);

/// The median of `values` (the mean of the two middle ones for an even count); NaN when empty.
double median(std::vector<double> values);

}  // namespace cudalabs
