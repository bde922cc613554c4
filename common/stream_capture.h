/// @file stream_capture.h
/// @brief Whether a stream's next work would be captured into a graph: a graph may be replayed on
/// any stream, beside anything, so memory a stream keeps for its own calls (arrival words, scratch)
/// must not go into one.
#pragma once

#include <cuda_runtime.h>

namespace cudalabs {

/// Whether work enqueued on `stream` now would be captured into a graph. An answer the runtime
/// cannot give counts as yes (the caller then takes the path a graph allows), and its error is
/// cleared: it is no failure of the caller's work.
inline bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace cudalabs
