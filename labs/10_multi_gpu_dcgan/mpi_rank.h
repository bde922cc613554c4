/// @file labs/10_multi_gpu_dcgan/mpi_rank.h
/// @brief One rank of the MPI program: what it knows, and the phases that set it up (its node and
/// GPU, the weights, rank 0's latents, its GpuWorker, rank 0's output window), each ending at a
/// checkpoint so that a failing rank stops every rank with one line.
#pragma once

#include "labs/09_dcgan/precision_backend.h"
#include "labs/10_multi_gpu_dcgan/distributed_run.h"
#include "labs/10_multi_gpu_dcgan/mpi_flags.h"
#include "labs/10_multi_gpu_dcgan/node_output.h"
#include "labs/10_multi_gpu_dcgan/rank_table.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lab10 {

/// What one rank knows, phase by phase.
struct RankState {
  int rank = 0;             ///< this rank in MPI_COMM_WORLD
  int size = 1;             ///< the ranks in MPI_COMM_WORLD
  std::string label;        ///< how rank 0 names this rank in an error line
  MpiFlags o;               ///< the command line as parsed on every rank
  Placement placement;      ///< this rank's node and GPU
  CheckedMpiFlags checked;  ///< the seed, the table's rows and columns, --precision, --devices
  lab09::PrecisionBackend backend;    ///< its layers on this rank's GPU (none for FP32)
  cudalabs::dcgan::Weights weights;   ///< every rank's, the same
  std::string weights_text;           ///< where the weights came from, for the header
  cudalabs::dcgan::Latents latents;   ///< rank 0's
  std::string latents_text;           ///< where the latents came from, for the header
  int num = 0;                        ///< images to generate: every rank's, from rank 0
  int largest_num = 0;                ///< the largest run (num or a scaling row), from rank 0
  std::unique_ptr<GpuWorker> worker;  ///< this rank's GPU and its generator
  std::unique_ptr<WorkerGenerator> generator;  ///< the worker as the distributed run sees it
  std::unique_ptr<NodeOutput> output;          ///< the node's shared output (or rank 0's own)
  bool in_place = false;                       ///< writes its images straight into rank 0's output
  std::vector<int> rank_devices;               ///< rank 0's: each rank's CUDA device (the record's)
};

/// Runs one phase (`body`) on this rank, then the checkpoint: 0 when every rank succeeded, else the
/// exit code (rank 0 has printed the failing rank's line).
int phase(RankState& s, const std::function<void()>& body);

/// The phases that set up every rank (collective over MPI_COMM_WORLD), after the flags: its
/// placement, the weights (`trained_weights`: the file of --weights trained) and its GPU; rank 0's
/// latents and the largest run, broadcast; its GpuWorker; rank 0's output window, big enough for
/// every run, shared with its node's ranks (written in place with --gather shared; other nodes'
/// always send). 0, or the exit code of the first failed phase.
int set_up_rank(RankState& s, const std::string& trained_weights);

}  // namespace lab10
