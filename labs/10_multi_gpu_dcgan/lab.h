/// @file labs/10_multi_gpu_dcgan/lab.h
/// @brief Lab 10: the DCGAN generator on every GPU of a node (one host thread per GPU) and across
/// nodes (one MPI rank per GPU), [DCGAN-SHPC] §2.6.
#pragma once

#include "labs/10_multi_gpu_dcgan/gpu_worker.h"

#include <span>

/// Lab 10: many GPUs.
namespace lab10 {

/// A contiguous run of images, [first, first + count).
struct Share {
  int first = 0;  ///< index of its first image
  int count = 0;  ///< images in it (0 when there are more parts than images)
};

/// Part `part` (0 .. parts - 1) of `num` (>= 0) images split over `parts` (>= 1) GPUs in order, as
/// evenly as possible: the first num % parts parts get one image more, so that the parts tile
/// [0, num) and no two differ by more than one image. Throws std::invalid_argument naming the
/// argument and its value otherwise.
Share gpu_share(int num, int parts, int part);

/// Generates `num` images from `latents` (num x 100 floats, host) into `images` (num x 64 x 64 x 3
/// floats, host) on all `workers` at once: worker p, driven by its own host thread, generates share
/// gpu_share(num, workers.size(), p) straight into its place in `images`, so the result is what one
/// GPU writes generating the same shares in turn. Returns the wall-clock seconds from starting the
/// threads to the last one finishing. If workers fail, waits for every thread, then throws
/// std::runtime_error naming the first failing worker's GPU and its error.
double generate_on_gpus(std::span<GpuWorker* const> workers, std::span<const float> latents,
                        int num, std::span<float> images);

}  // namespace lab10

/// Which build of lab 10's kernels this program linked: "student" or "solution". CMake generates
/// it for each kernel library, so that a later lab's driver can say what it runs on
/// (common/earlier_labs.h).
extern "C" const char* cudalabs_lab10_kernels_build();
