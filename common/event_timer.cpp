#include "common/event_timer.h"

#include "common/cuda_check.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace cudalabs {

EventTimer::EventTimer() {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  (void)cudaEventDestroy(start_);  // a destructor must not throw
  (void)cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(start_, stream));
}

void EventTimer::stop(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(stop_, stream));
}

float EventTimer::elapsed_ms() {
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

std::vector<double> time_each_run_ms(const std::function<void(cudaStream_t, int)>& launch,
                                     int warmups, int repetitions, cudaStream_t stream) {
  if (repetitions < 1) {
    throw std::invalid_argument("time_each_run_ms: repetitions = " + std::to_string(repetitions) +
                                " must be at least 1");
  }
  int run = 0;
  for (int i = 0; i < warmups; ++i) launch(stream, run++);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EventTimer timer;
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(repetitions));
  for (int i = 0; i < repetitions; ++i) {
    timer.start(stream);
    launch(stream, run++);
    timer.stop(stream);
    times.push_back(timer.elapsed_ms());
  }
  return times;
}

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return 0.5 * (lower + upper);
}

}  // namespace cudalabs
