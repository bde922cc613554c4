/// @file arrival_words.h
/// @brief The arrival words of split GEMMs that finish in place (split_finish.h): one buffer per
/// device, kept for the process's life and lent to one launch at a time.
///
/// A launch counts arrivals on words tagged with its own tag, so it needs no cleared words (a
/// cudaMemsetAsync would cost the host as much as a launch). Two launches must not count on the
/// same words at once, so a launch's stream first waits for the last launch that had them, on
/// whatever stream (an event recorded after each), and the host lends them to one caller at a
/// time: split GEMMs on different streams run one after another, whatever else those streams do.
/// A stream being captured into a graph is lent nothing (a graph replayed later would count on
/// words another launch holds): the caller then sums its parts in a second kernel.
#pragma once

#include <cuda_runtime.h>

#include <mutex>

namespace cudalabs {

/// Words of the device's buffer: enough for any split the planners make (a region per tile and
/// part of a tile's rows, and a split C has few tiles).
inline constexpr long long kArrivalWords = 1 << 16;

/// `count` arrival words lent to the launches enqueued on `stream` while this object lives, with
/// their tag. Empty (words() null) where `stream` is being captured or `count` exceeds
/// kArrivalWords.
class ArrivalWords {
 public:
  ArrivalWords(cudaStream_t stream, long long count);
  ~ArrivalWords();  // records the event the next borrower's stream waits for
  ArrivalWords(const ArrivalWords&) = delete;
  ArrivalWords& operator=(const ArrivalWords&) = delete;

  /// Whether words were lent.
  bool lent() const { return words_ != nullptr; }
  /// The words (null when none were lent).
  unsigned long long* words() const { return words_; }
  /// The tag of this loan, never 0, below 2^(64 - kArrivalCountBits).
  unsigned long long tag() const { return tag_; }

 private:
  cudaStream_t stream_;
  std::unique_lock<std::mutex> lock_;
  cudaEvent_t last_use_ = nullptr;
  unsigned long long* words_ = nullptr;
  unsigned long long tag_ = 0;
};

}  // namespace cudalabs
