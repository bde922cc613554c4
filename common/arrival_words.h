/// @file arrival_words.h
/// @brief The arrival words of split GEMMs that finish in place (split_finish.h): a buffer per
/// stream, kept for the process's life.
///
/// The last arrival of a launch moves each word on to the next launch's zero count
/// (split_finish.h), so no launch clears them (a cudaMemsetAsync would cost the host as much as a
/// launch). Two launches must never count on the same words at once: launches on one stream run
/// one after another, so each stream (by its ID, which no later stream reuses, unlike its handle)
/// has words of its own, and nothing orders one stream's launches after another's. Past
/// kArrivalStreams streams on a device, the words of the stream unused longest go to the new one
/// once the device is idle (a synchronization: no launch of the old stream can then still be
/// counting). A stream being captured into a graph is lent nothing (a graph may be replayed on any
/// stream, beside anything): the caller then sums its parts in a second kernel.
#pragma once

#include <cuda_runtime.h>

namespace cudalabs {

/// Words of a stream's buffer: enough for any split the planners make (a region per tile and
/// part of a tile's rows, and a split C has few tiles).
inline constexpr long long kArrivalWords = 1 << 14;

/// Streams of one device that keep words at once.
inline constexpr int kArrivalStreams = 16;

/// `count` arrival words for the launches enqueued on `stream` now. Empty (words() null) where
/// `stream` is being captured or `count` exceeds kArrivalWords.
class ArrivalWords {
 public:
  /// Lends `stream`'s words (its own, made on first use), or nothing (above).
  ArrivalWords(cudaStream_t stream, long long count);

  /// Whether words were lent.
  bool lent() const { return words_ != nullptr; }
  /// The words (null when none were lent).
  unsigned long long* words() const { return words_; }

 private:
  unsigned long long* words_ = nullptr;
};

}  // namespace cudalabs
