/// @file labs/10_multi_gpu_dcgan/mpi_flags.h
/// @brief The MPI program's flags: lab 10's run flags (run_flags.h) and its own, parsed and checked
/// from the command line and the number of ranks alone, so that every rank reaches the same verdict
/// without a message.
#pragma once

#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include <string>
#include <vector>

namespace lab10 {

/// The flags the MPI program takes.
struct MpiFlags {
  RunFlags run;                   ///< the flags both programs take
  int simulate_nodes = 0;         ///< --simulate-nodes: K nodes of consecutive ranks (0: real)
  std::string scaling_ranks;      ///< --scaling-ranks: rank counts of the table
  std::string gather = "shared";  ///< --gather: shared or collective
  std::string devices;            ///< --devices: each local rank's GPU
};

/// What parse_mpi_flags derives from them.
struct CheckedMpiFlags {
  CheckedRunFlags run;           ///< the seed, the table's nums, the precision
  std::vector<int> rank_counts;  ///< the table's columns (default 1, 2, 4, ... and all ranks)
  std::vector<int> devices;      ///< --devices (empty: local rank l on GPU l)
};

/// Parses the command line into `flags` for a run of `ranks` ranks and checks it: FlagError naming
/// the flag (a --precision the program's backend lacks, a --gather not shared or collective,
/// --scaling-ranks past the ranks, ranks that do not split into --simulate-nodes equal nodes);
/// --help prints the help (cudalabs::parse_flags).
CheckedMpiFlags parse_mpi_flags(int argc, char** argv, int ranks, MpiFlags& flags);

}  // namespace lab10
