#include "common/arrival_words.h"

#include "common/cuda_check.h"
#include "common/split_finish.h"

#include <map>
#include <memory>

namespace cudalabs {
namespace {

// One device's words, the event after their last use, and the next tag.
struct DeviceWords {
  std::mutex guard;
  unsigned long long* words = nullptr;
  cudaEvent_t last_use = nullptr;
  unsigned long long next_tag = 1;
};

// The current device's words, made on first use (cleared once, so that no word holds a tag).
DeviceWords& device_words() {
  static std::mutex guard;
  static std::map<int, std::unique_ptr<DeviceWords>> devices;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(guard);
  std::unique_ptr<DeviceWords>& found = devices[device];
  if (!found) {
    auto made = std::make_unique<DeviceWords>();
    CUDA_CHECK(cudaMalloc(&made->words, sizeof(unsigned long long) * kArrivalWords));
    CUDA_CHECK(cudaMemset(made->words, 0, sizeof(unsigned long long) * kArrivalWords));
    CUDA_CHECK(cudaEventCreateWithFlags(&made->last_use, cudaEventDisableTiming));
    found = std::move(made);
  }
  return *found;
}

// Whether work enqueued on `stream` now would be captured into a graph (an answer the runtime
// cannot give counts as yes: the caller then takes the path that needs no loan).
bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    (void)cudaGetLastError();  // not a failure of the caller's work: clear it
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace

ArrivalWords::ArrivalWords(cudaStream_t stream, long long count) : stream_(stream) {
  if (count > kArrivalWords || capturing(stream)) return;
  DeviceWords& device = device_words();
  lock_ = std::unique_lock<std::mutex>(device.guard);
  CUDA_CHECK(cudaStreamWaitEvent(stream, device.last_use, 0));
  last_use_ = device.last_use;
  words_ = device.words;
  constexpr unsigned long long kTags = 1ull << (64 - kArrivalCountBits);
  tag_ = device.next_tag;
  device.next_tag = device.next_tag + 1 == kTags ? 1 : device.next_tag + 1;
}

ArrivalWords::~ArrivalWords() {
  if (words_ != nullptr) (void)cudaEventRecord(last_use_, stream_);  // a destructor must not throw
}

}  // namespace cudalabs
