/// @file labs/10_multi_gpu_dcgan/mpi_table.h
/// @brief The MPI program's scaling table ([DCGAN-SHPC]'s Table 4 over the first G ranks): every
/// cell timed by the kit's host clock (common/host_timing.h) on every rank at once, then checked
/// again where it was timed, with a verdict every rank of the cell agrees on.
#pragma once

#include "common/cli.h"
#include "common/run_protocol.h"
#include "labs/10_multi_gpu_dcgan/distributed_run.h"
#include "labs/10_multi_gpu_dcgan/node_output.h"
#include "labs/10_multi_gpu_dcgan/scaling.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace lab10 {

/// One rank's side of the table: what it runs on, and where the images go.
struct RankSide {
  RankGenerator& generator;  ///< this rank's GPU
  const ImageTypes& types;   ///< the datatypes of the scatter and the gathers
  const NodeOutput& output;  ///< rank 0's output: the timed images
  bool in_place = false;     ///< writes its images straight into `output` (distributed_generate)
  std::string flavour;       ///< names the cells: "mpi" or "mpi-collective" (lab10/FLAVOUR/...)
  std::string program;       ///< names the program in a failing rank's line (checkpoint)
  std::string rank_label;    ///< names this rank there: "rank 1 (node 0, GPU 1)"
};

/// The table on one rank. Every rank makes the same calls in the same order; a rank past a
/// column's G ranks sits that column's runs out.
class MpiTable {
 public:
  /// Collective over MPI_COMM_WORLD: one communicator per column (its first G ranks, G in
  /// `table.gpu_counts`), and on rank 0 the timed latents, `timed_count` of them (>= every num).
  MpiTable(const ScalingTable& table, const RankSide& side, int timed_count);
  ~MpiTable();
  MpiTable(const MpiTable&) = delete;
  MpiTable& operator=(const MpiTable&) = delete;

  /// Adds every cell (num x G ranks) to `session` as a host-timed run of distributed_generate on
  /// the first G ranks, with its recheck: on rank 0 fresh latents drawn into the timed input and
  /// the timed images poisoned (refill_for_recheck), on every rank of the cell its GPU poisoned,
  /// one distributed run, the ranks' outcomes agreed (checkpoint over the cell: a rank's failure
  /// fails the recheck, its line on stderr), then on rank 0 the sampled images against the CPU
  /// reference and the whole output against rank 0's GPU alone (recheck_run). Other ranks' rechecks
  /// pass with their part done: rank 0's verdicts are the table's. The table must outlive the
  /// session's timing and rechecks.
  void add_cells(cudalabs::TimedSession& session);

  /// Collective over MPI_COMM_WORLD, after the timing: the outcome of every rank's timed runs,
  /// agreed (checkpoint); rank 0 has printed the first failing rank's line.
  cudalabs::CaughtError timing_outcome() const;

 private:
  cudalabs::Recheck recheck_cell(MPI_Comm cell, int num, int gpus);

  const ScalingTable& table_;
  RankSide side_;
  int rank_ = 0;
  std::vector<float> latents_;            // rank 0's timed input
  std::vector<MPI_Comm> columns_;         // per G: its first G ranks (MPI_COMM_NULL past them)
  cudalabs::CaughtError timing_failure_;  // this rank's first failed timed run
};

/// Collective over MPI_COMM_WORLD: true on every rank when rank 0's `passed` is.
bool agreed_by_rank0(bool passed);

}  // namespace lab10
