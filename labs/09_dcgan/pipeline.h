/// @file labs/09_dcgan/pipeline.h
/// @brief End to end ([DCGAN-SHPC] §2.5): latent vectors in host memory -> images in host memory,
/// in batches, with pinned staging buffers and the copies overlapped with the generator's kernels.
#pragma once

#include "common/device_buffer.h"
#include "common/pinned_buffer.h"
#include "common/timeline.h"
#include "labs/09_dcgan/generator.h"

#include <cuda_runtime.h>

#include <array>
#include <functional>
#include <span>
#include <string>

namespace lab09 {

/// Runs num latent vectors through the generator batch by batch. Three slots rotate: while batch b
/// computes on the compute stream, batch b + 1's latents go up and batch b - 1's images come down
/// on two copy streams (the copy engines work beside the SMs), and the host copies batch b - 2's
/// images from pinned memory into the caller's buffer ([DCGAN-SHPC] §2.5.2's detour, which lets
/// `images` be ordinary pageable memory).
class Pipeline {
 public:
  /// Pinned and device buffers for batches of generator.max_batch() images.
  explicit Pipeline(Generator& generator);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// Called on the calling thread each time a batch's images are in `images`: its first image and
  /// count (lab 10 sends them on to another process while the GPU computes the next ones).
  using DeliveredBatch = std::function<void(int first, int count)>;

  /// latents: num x 100 floats; images: num x 64 x 64 x 3 floats (both host, any memory).
  /// Returns the wall-clock seconds from the first latent read to the last image written.
  double generate(const DcganVariant& variant, const std::array<TconvMethod, 4>& methods,
                  std::span<const float> latents, int num, std::span<float> images,
                  const DeliveredBatch& delivered = {});

  /// Host threads that copy images out of pinned memory (default: OpenMP's maximum). Several
  /// pipelines in one process (one per GPU, lab 10) share the cores instead of each asking for all
  /// of them.
  void set_copy_threads(int threads);

  /// Fills the device image slots with NaN, so that a checked run finds an image no kernel wrote.
  void poison_device_images();

  /// Records the next generate() calls into `timeline` (nullptr stops): per batch, the host's
  /// staging of the latents and copy of the images, the upload, each layer's kernels and the
  /// download, as spans of track group `process` named `label` (e.g. "GPU 1"). Timing events are
  /// made only then.
  void set_timeline(cudalabs::Timeline* timeline, int process, const std::string& label);

 private:
  static constexpr int kSlots = 3;
  Generator& generator_;
  std::array<cudalabs::PinnedBuffer<float>, kSlots> host_latents_, host_images_;
  std::array<cudalabs::DeviceBuffer<float>, kSlots> device_latents_, device_images_;
  std::array<cudaEvent_t, kSlots> uploaded_{}, computed_{}, downloaded_{};
  cudaStream_t compute_ = nullptr, upload_ = nullptr, download_ = nullptr;
  int copy_threads_;
  cudalabs::Timeline* timeline_ = nullptr;
  int timeline_process_ = 0;
};

}  // namespace lab09
