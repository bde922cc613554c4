/// @file labs/10_multi_gpu_dcgan/gpu_worker.h
/// @brief One GPU's whole generator: lab 09's weights, activations, streams and pinned buffers, all
/// created on that GPU, so that several can run side by side (one host thread or MPI rank each).
#pragma once

#include "common/dcgan_model.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/pipeline.h"

#include <chrono>
#include <memory>
#include <span>
#include <utility>

namespace lab10 {

/// Lab 09's generator and end-to-end pipeline on one GPU, running the sub-pixel variant, or a
/// reduced precision's layers when a program hands it a backend (lab 11's tensor cores).
///
/// Every CUDA object belongs to the device that was current when it was made, and the current
/// device is a per-thread setting: the constructor and generate() therefore make `device` current
/// on the calling thread first, so that any thread may use the worker.
class GpuWorker {
 public:
  /// Uploads `weights` to GPU `device` and allocates for batches of up to `batch` images. Throws
  /// std::invalid_argument naming the device when it does not exist or the buffers do not fit.
  /// `copy_threads` host threads copy its images out of pinned memory (the cores are shared by all
  /// the workers of a process). With a `backend` (lab09::PrecisionBackend), its layers are made on
  /// this GPU and its variant runs instead of the sub-pixel one.
  GpuWorker(int device, const cudalabs::dcgan::Weights& weights, int batch, int copy_threads,
            const lab09::PrecisionBackend& backend = {});
  ~GpuWorker();
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  /// The CUDA device ordinal it runs on.
  int device() const { return device_; }
  /// The largest batch of one generator run.
  int batch() const;

  /// Generates `count` images (0 does nothing) from `latents` (count x 100 floats, host) into
  /// `images` (count x 64 x 64 x 3 floats, host), batch by batch with copies overlapped;
  /// `delivered` is called as each batch lands (lab09::Pipeline). Returns the wall-clock seconds.
  double generate(std::span<const float> latents, int count, std::span<float> images,
                  const lab09::Pipeline::DeliveredBatch& delivered = {});

  /// Records the next generate() calls into `timeline` (nullptr stops), as track group `process`
  /// named `label` (lab09::Pipeline::set_timeline).
  void set_timeline(cudalabs::Timeline* timeline, int process, const std::string& label);

  /// When the last generate() began and ended (steady clock): lab 10's tests check that the workers
  /// of one call run at the same time.
  std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point> last_run()
      const {
    return {last_start_, last_end_};
  }

  /// Fills its activations and device image slots with NaN before a checked run, so that a layer
  /// whose kernel writes nothing (lab 09's skeleton) leaves NaN in the images: "not implemented
  /// yet".
  void poison();

 private:
  void make_current() const;

  int device_;
  std::unique_ptr<lab09::Generator> generator_;
  std::unique_ptr<lab09::Pipeline> pipeline_;
  const lab09::DcganVariant* variant_ = nullptr;
  std::array<lab09::TconvMethod, 4> methods_{};
  std::chrono::steady_clock::time_point last_start_{}, last_end_{};
};

}  // namespace lab10
