/// @file stream_scratch.h
/// @brief Scratch memory for the launches of one GEMM call (copies of misaligned operands, a
/// split's partial Cs), kept by its stream for the next call: a call then asks the runtime for no
/// memory.
///
/// An allocation from the stream-ordered pool and its free cost the host about as much as a launch
/// each, as much as a small GEMM's GPU time: lab 11's calls that copied an operand took 12.8 us of
/// host time (median) with them and with tensor maps encoded at every call, 10.0 without
/// (docs/data/history/gemm_random_shapes_scratch_s21_nvidia-h200/). So each stream keeps a buffer
/// a use, grown when a call needs more, and lends it to one call at a time: launches on one stream
/// run one after another, so the next call's copy waits for this call's kernel. A stream being
/// captured into a graph (a graph may be replayed on any stream), a buffer already lent (another
/// thread's call on the same stream) or a stream past the kept ones gets memory of its own from the
/// pool, freed on the stream when the scratch goes, as before.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace cudalabs {

/// This device's pool for scratch, which keeps what is freed (release threshold: everything): a
/// copy then costs its bandwidth, not an allocation from the driver at every call.
cudaMemPool_t scratch_pool();

/// What a call's scratch is for: the buffers a stream keeps are one per use.
enum class ScratchUse { kOperands, kParts };

/// Streams of one device that keep scratch at once.
inline constexpr int kScratchStreams = 16;

/// `bytes` of scratch (256-byte aligned) for the work a call enqueues on `stream` while this object
/// lives: its stream's buffer for `use`, or memory of its own (above).
class StreamScratch {
 public:
  /// Lends `stream`'s buffer for `use`, grown to `bytes` where smaller, or allocates `bytes` of its
  /// own on the stream (above).
  StreamScratch(cudaStream_t stream, ScratchUse use, std::size_t bytes);
  ~StreamScratch();  ///< gives the buffer back (or frees its own on the stream); never throws
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;

  /// The scratch.
  void* data() const { return data_; }
  /// Whether it is the stream's kept buffer (false: memory of its own).
  bool kept() const { return slot_ != nullptr; }

 private:
  cudaStream_t stream_;
  void* data_ = nullptr;
  bool* slot_ = nullptr;  ///< the kept buffer's "lent" flag, cleared when this goes
};

}  // namespace cudalabs
