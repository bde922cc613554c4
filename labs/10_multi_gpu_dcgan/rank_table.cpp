#include "labs/10_multi_gpu_dcgan/rank_table.h"

#include "common/cuda_check.h"
#include "common/device_info.h"
#include "common/text_table.h"

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace lab10 {

Placement place(int simulate_nodes, const std::vector<int>& devices) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Placement p;
  if (simulate_nodes > 0) {  // a divisor of size (checked with the flags)
    p.ranks_on_node = size / simulate_nodes;
    p.node = rank / p.ranks_on_node;
    p.local_rank = rank % p.ranks_on_node;
    // All "nodes" share this machine's GPUs: node n's GPU g is physical GPU n * ranks_on_node + g.
    p.device = rank;
  } else {
    // The ranks that share memory with this one are the ranks of its node; the lowest ranks take
    // the lowest GPUs. Nodes are numbered by their lowest rank.
    MPI_Comm node_comm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm);
    MPI_Comm_rank(node_comm, &p.local_rank);
    MPI_Comm_size(node_comm, &p.ranks_on_node);
    // A node's number is how many node leaders (local rank 0) have a lower world rank; the ranks of
    // a node need not be consecutive, so it travels from the leader to the others.
    const int leader = p.local_rank == 0 ? 1 : 0;
    int leaders_before = 0;
    MPI_Exscan(&leader, &leaders_before, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    p.node = rank == 0 ? 0 : leaders_before;  // MPI_Exscan leaves rank 0's result undefined
    MPI_Bcast(&p.node, 1, MPI_INT, 0, node_comm);
    MPI_Comm_free(&node_comm);
    p.device = p.local_rank;
  }
  if (!devices.empty()) {
    if (static_cast<std::size_t>(p.device) >= devices.size()) {
      throw std::invalid_argument("--devices: " + std::to_string(devices.size()) +
                                  " GPU(s) listed, none for " +
                                  (simulate_nodes > 0 ? "rank " : "local rank ") +
                                  std::to_string(p.device) + " (one entry per rank of a node)");
    }
    p.device = devices[p.device];
  }
  return p;
}

void require_device(const Placement& mine, int rank, int simulate_nodes, bool devices_given) {
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  if (mine.device < present) return;
  const bool simulated = simulate_nodes > 0;
  throw std::invalid_argument(
      devices_given ? "--devices: GPU " + std::to_string(mine.device) + " does not exist (" +
                          std::to_string(present) + " present)"
                    : "no GPU for " + std::string(simulated ? "rank " : "local rank ") +
                          std::to_string(simulated ? rank : mine.local_rank) + ": this node has " +
                          std::to_string(present) + " (start at most one rank per GPU)");
}

namespace {

// One row of the table, as it travels to rank 0: a struct with its own MPI datatype.
struct RankRow {
  int node = 0;
  int local_rank = 0;
  int device = 0;
  char name[96] = {};
};

struct RankRowType {
  MPI_Datatype type;
  RankRowType() {
    const int lengths[] = {1, 1, 1, static_cast<int>(sizeof(RankRow::name))};
    const MPI_Aint offsets[] = {offsetof(RankRow, node), offsetof(RankRow, local_rank),
                                offsetof(RankRow, device), offsetof(RankRow, name)};
    const MPI_Datatype types[] = {MPI_INT, MPI_INT, MPI_INT, MPI_CHAR};
    MPI_Datatype packed;
    MPI_Type_create_struct(4, lengths, offsets, types, &packed);
    // Sized as the C++ struct, so that an array of rows strides correctly.
    MPI_Type_create_resized(packed, 0, sizeof(RankRow), &type);
    MPI_Type_free(&packed);
    MPI_Type_commit(&type);
  }
  ~RankRowType() { MPI_Type_free(&type); }
};

}  // namespace

std::vector<int> print_rank_table(std::ostream& out, const Placement& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  RankRow row{mine.node, mine.local_rank, mine.device, {}};
  std::snprintf(row.name, sizeof row.name, "%s", cudalabs::device_name(mine.device).c_str());
  const RankRowType row_type;
  std::vector<RankRow> rows(rank == 0 ? size : 0);
  MPI_Gather(&row, 1, row_type.type, rows.data(), 1, row_type.type, 0, MPI_COMM_WORLD);
  cudalabs::TextTable table({{"rank", true},
                             {"node", true},
                             {"GPU of node", true},
                             {"CUDA device", true},
                             {"name", false}});
  std::vector<int> devices;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    table.add_row({std::to_string(r), std::to_string(rows[r].node),
                   std::to_string(rows[r].local_rank), std::to_string(rows[r].device),
                   rows[r].name});
    devices.push_back(rows[r].device);
  }
  if (rank == 0) table.print(out);
  return devices;
}

}  // namespace lab10
