/// @file labs/10_multi_gpu_dcgan/node_output.h
/// @brief The MPI program's output images in memory that every rank of rank 0's node can write: an
/// MPI-3 shared-memory window (MPI_Win_allocate_shared). Those ranks put their images straight into
/// rank 0's output, so that only images made on other nodes travel in MPI messages.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>

namespace lab10 {

/// Rank 0's output images, shared with the ranks of its node.
///
/// Why: a gather between two processes of one node goes through the shared-memory transport's
/// copy-in/copy-out (each byte copied twice by the CPU, through small buffers), which is slower
/// than the GPUs make images. Ranks that can map the output need no message at all.
class NodeOutput {
 public:
  /// Collective over `node0`, the ranks of rank 0's node (world rank 0 is its rank 0); every other
  /// rank passes MPI_COMM_NULL and gets no window. Room for `images` images, on rank 0's side.
  /// Throws std::runtime_error when MPI cannot make the window (e.g. too little /dev/shm).
  NodeOutput(MPI_Comm node0, std::size_t images);
  ~NodeOutput();
  NodeOutput(const NodeOutput&) = delete;
  NodeOutput& operator=(const NodeOutput&) = delete;

  /// The whole output (images x 64 x 64 x 3 floats); empty outside rank 0's node.
  std::span<float> floats() const { return {base_, floats_}; }

  /// MPI_Win_sync: a writer calls it after its stores and before the barrier that tells rank 0, and
  /// rank 0 after that barrier and before reading, so that the stores are seen across processes.
  void sync() const;

 private:
  MPI_Win window_ = MPI_WIN_NULL;
  float* base_ = nullptr;
  std::size_t floats_ = 0;
};

}  // namespace lab10
