/// @file labs/10_multi_gpu_dcgan/rank_table.h
/// @brief Where each rank of the MPI program runs (its node and GPU) and [DCGAN-SHPC]'s rank table
/// that rank 0 prints from it.
#pragma once

#include <mpi.h>

#include <ostream>
#include <vector>

namespace lab10 {

/// Where one rank runs.
struct Placement {
  int node = 0;           ///< node index (simulated or real)
  int local_rank = 0;     ///< rank among its node's ranks
  int device = 0;         ///< CUDA ordinal on this machine
  int ranks_on_node = 1;  ///< ranks of its node
};

/// Collective over MPI_COMM_WORLD. With `simulate_nodes` K > 0 (a divisor of the ranks), K nodes of
/// consecutive ranks on this machine, rank r on GPU r; else the ranks sharing memory with this one
/// (MPI_Comm_split_type) are its node, local rank l on GPU l. `devices` (--devices), when given,
/// maps that index (r or l) to the GPU instead: '0,0' puts two ranks on GPU 0. Throws
/// std::invalid_argument naming --devices when it has no entry for this rank.
Placement place(int simulate_nodes, const std::vector<int>& devices);

/// Throws std::invalid_argument when `mine.device` is not a GPU of this machine: naming --devices
/// when they were given (`devices_given`), else "no GPU for (local) rank R: this node has N (start
/// at most one rank per GPU)", R being the world `rank` when nodes are simulated.
void require_device(const Placement& mine, int rank, int simulate_nodes, bool devices_given);

/// Collective over MPI_COMM_WORLD: every rank's placement and GPU name gathered on rank 0, which
/// prints the table (rank, node, GPU of node, CUDA device, name) on `out`. Returns, on rank 0,
/// each rank's CUDA device (empty elsewhere).
std::vector<int> print_rank_table(std::ostream& out, const Placement& mine);

}  // namespace lab10
