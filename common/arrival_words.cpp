#include "common/arrival_words.h"

#include "common/cuda_check.h"
#include "common/stream_capture.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

namespace cudalabs {
namespace {

// One stream's words on a device, and when it last used them (a count of loans).
struct StreamWords {
  unsigned long long stream_id = 0;
  unsigned long long* words = nullptr;
  unsigned long long last_loan = 0;
};

// Every device's streams with words, and the loans so far.
struct Loans {
  std::mutex guard;
  std::map<int, std::vector<StreamWords>> devices;
  unsigned long long count = 0;
};

Loans& loans() {
  static Loans all;
  return all;
}

// Fresh words, cleared once: every count starts at zero.
unsigned long long* new_words() {
  unsigned long long* words = nullptr;
  CUDA_CHECK(cudaMalloc(&words, sizeof(unsigned long long) * kArrivalWords));
  CUDA_CHECK(cudaMemset(words, 0, sizeof(unsigned long long) * kArrivalWords));
  return words;
}

}  // namespace

ArrivalWords::ArrivalWords(cudaStream_t stream, long long count) {
  if (count > kArrivalWords || stream_is_capturing(stream)) return;
  int device = 0;
  unsigned long long stream_id = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaStreamGetId(stream, &stream_id));
  Loans& all = loans();
  const std::lock_guard<std::mutex> lock(all.guard);
  std::vector<StreamWords>& streams = all.devices[device];
  auto found = std::find_if(streams.begin(), streams.end(),
                            [&](const StreamWords& s) { return s.stream_id == stream_id; });
  if (found == streams.end()) {
    if (static_cast<int>(streams.size()) < kArrivalStreams) {
      streams.push_back({stream_id, new_words(), 0});
      found = streams.end() - 1;
    } else {
      found = std::min_element(
          streams.begin(), streams.end(),
          [](const StreamWords& a, const StreamWords& b) { return a.last_loan < b.last_loan; });
      CUDA_CHECK(cudaDeviceSynchronize());  // the old stream's launches are done with the words
      found->stream_id = stream_id;
    }
  }
  found->last_loan = ++all.count;
  words_ = found->words;
}

}  // namespace cudalabs
