/// @file labs/10_multi_gpu_dcgan/distributed_run.h
/// @brief One run of the MPI program on the ranks of a communicator: rank 0's latent vectors
/// scattered, every rank's share generated on its GPU, the images brought into rank 0's output
/// (written in place through the shared window, or gathered in rounds while the GPUs compute).
#pragma once

#include "common/cli.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/node_output.h"

#include <mpi.h>

#include <functional>
#include <span>

namespace lab10 {

/// What one rank's GPU does in a distributed run: GpuWorker in the MPI program, a CPU stand-in in
/// the tests (so that the MPI side, its gathers and its rechecks, runs without a GPU).
class RankGenerator {
 public:
  /// Called as each batch lands in the images: its first image and its count.
  using Landed = std::function<void(int first, int count)>;

  virtual ~RankGenerator() = default;
  /// The largest batch of one generator run: the images of one gather round.
  virtual int batch() const = 0;
  /// Generates `count` images of `latents` (count x 100 floats) into `images` (count images),
  /// batch by batch, calling `landed` (when given) as each batch is in place.
  virtual void generate(std::span<const float> latents, int count, std::span<float> images,
                        const Landed& landed = {}) = 0;
  /// Fills its own buffers (the GPU's activations) with NaN before a checked run.
  virtual void poison() = 0;
};

/// A rank's GpuWorker as the distributed run sees it.
class WorkerGenerator final : public RankGenerator {
 public:
  /// Runs on `worker`, which must outlive it.
  explicit WorkerGenerator(GpuWorker& worker) : worker_(worker) {}
  int batch() const override { return worker_.batch(); }
  void generate(std::span<const float> latents, int count, std::span<float> images,
                const Landed& landed) override {
    worker_.generate(latents, count, images, landed);
  }
  void poison() override { worker_.poison(); }

 private:
  GpuWorker& worker_;
};

/// The MPI datatypes of one latent vector and one image, so that counts and displacements are in
/// vectors and images (65536 images are 805 M floats: close to an int's range in floats, far from
/// it in images).
struct ImageTypes {
  MPI_Datatype latent;  ///< 100 floats
  MPI_Datatype image;   ///< 64 x 64 x 3 floats
  ImageTypes();
  ~ImageTypes();
  ImageTypes(const ImageTypes&) = delete;
  ImageTypes& operator=(const ImageTypes&) = delete;
};

/// Collective over `comm`: `num` images, rank 0's `latents` scattered (scatter_latents), every
/// rank's share (gpu_share) generated, the images brought into rank 0's `output`. A rank with
/// `in_place` (rank 0 always) generates straight into its place in `output`, which it shares with
/// rank 0; the others send theirs in MPI_Igatherv rounds as their batches land, a helper thread
/// making the MPI calls (MPI_THREAD_SERIALIZED). Returns the rank's wall-clock seconds from a
/// barrier to the last image in place (rank 0's: the run's). The rank's own failure is returned in
/// `outcome`: the run still completes every collective, so that no rank waits forever.
double distributed_generate(MPI_Comm comm, const ImageTypes& types, RankGenerator& generator,
                            std::span<const float> latents, int num, const NodeOutput& output,
                            bool in_place, cudalabs::CaughtError& outcome);

}  // namespace lab10
