// Lab 10's MPI program (`lab10_mpi` with the student's gpu_share, and `dcgan_mpi`, the finished
// program of programs/, with the solution's and lab 11's layers for --precision tf32 and bf16:
// labs/09_dcgan/precision_backend.h): one rank per GPU, on one node or many, [DCGAN-SHPC] §2.6.
//
//   mpirun -np R [--bind-to none] dcgan_mpi [--num N | --input z.cldz] [--output grid.png] ...
//
// - Each rank picks its GPU by its rank among the ranks of its node (MPI_Comm_split_type with
//   MPI_COMM_TYPE_SHARED), so the same command works for one node or many. --simulate-nodes K makes
//   one machine stand for K nodes: consecutive ranks form a node, as in [DCGAN-SHPC]'s rank tables.
// - The three MPI parts a student writes (the solution's in solutions/10_multi_gpu_dcgan/):
//   scatter_latents (scatter.cpp), NodeOutput (node_output.cpp) and checkpoint (checkpoint.cpp).
// - Rank 0 reads or draws the latent vectors and scatters each rank its gpu_share (MPI_Scatterv).
// - Rank 0's output lives in an MPI-3 shared-memory window of rank 0's node (NodeOutput): rank 0
// and,
//   with --gather shared (the default), every rank of its node run lab 09's pipeline straight into
//   their places there; a barrier tells rank 0 they are done. No byte of theirs is sent.
// - A rank of another node (or, with --gather collective, every rank but 0) sends its images: as
// each
//   of its batches lands in host memory, it joins that round's MPI_Igatherv, so the images travel
//   to rank 0 while the GPUs compute the next ones. On those ranks and on rank 0 a helper thread
//   makes the MPI calls while the pipeline runs (MPI_THREAD_SERIALIZED: it is the only thread
//   calling MPI then): on rank 0 it waits on the gathers, elsewhere it joins each round as its
//   batch lands. Within one node that path is the slow one: the shared-memory transport copies
//   every byte twice through small buffers (the handout measures both).
// - Every phase ends at a checkpoint (MPI_Allreduce of a status): if any rank failed (no GPU, a bad
//   device, not enough memory, a bad file), rank 0 prints one line naming the rank and its error,
//   and every rank exits non-zero; none is left waiting in a collective.
// - Rank 0 checks sampled images against the CPU reference and the gathered output against its own
//   GPU's, prints [DCGAN-SHPC]'s Table 4 (num_to_gen x ranks, end to end), and writes the images.
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/dcgan_images.h"
#include "common/dcgan_inputs.h"
#include "common/device_info.h"
#include "common/earlier_labs.h"
#include "common/event_timer.h"
#include "common/random_fill.h"
#include "common/text_table.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/precision_backend.h"
#include "labs/10_multi_gpu_dcgan/checkpoint.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/node_output.h"
#include "labs/10_multi_gpu_dcgan/not_implemented.h"
#include "labs/10_multi_gpu_dcgan/run_flags.h"
#include "labs/10_multi_gpu_dcgan/scaling.h"
#include "labs/10_multi_gpu_dcgan/scatter.h"

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using dcgan::kImageFloats;
using dcgan::kLatent;

struct Options {
  lab10::RunFlags run;
  int simulate_nodes = 0;
  std::string scaling_ranks;
  std::string gather = "shared";
};

void register_flags(CLI::App& app, Options& o) {
  lab10::add_run_flags(app, o.run, "lab10_mpi");
  cudalabs::add_integer_flag(
      app, "--simulate-nodes", o.simulate_nodes, 1, 1024,
      "Treat this machine as K nodes of R / K consecutive ranks each ([DCGAN-SHPC]'s rank tables)");
  app.add_option("--scaling-ranks", o.scaling_ranks,
                 "Rank counts of the scaling table (default 1, 2, 4, ... up to R, and R): the "
                 "first ranks of the run")
      ->type_name("N,...");
  app.add_option(
         "--gather", o.gather,
         "How images reach rank 0 from the ranks of its node: 'shared' (they write into rank 0's "
         "output, an MPI shared-memory window) or 'collective' (MPI_Igatherv, like the ranks of "
         "other nodes)")
      ->type_name("shared|collective");
}

// ---- Where each rank runs ----

struct Placement {
  int node = 0;        // node index (simulated or real)
  int local_rank = 0;  // rank among its node's ranks
  int device = 0;      // CUDA ordinal on this machine
  int ranks_on_node = 1;
};

Placement place(const Options& o, int rank, int size) {
  Placement p;
  if (o.simulate_nodes > 0) {  // a divisor of size (parse_run_flags)
    p.ranks_on_node = size / o.simulate_nodes;
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
  return p;
}

// ---- One distributed run ----

// Types of one latent vector and one image, so that counts and displacements are in vectors and
// images (65536 images are 805 M floats: close to an int's range in floats, far from it in images).
struct Types {
  MPI_Datatype latent, image;
  Types() {
    MPI_Type_contiguous(static_cast<int>(kLatent), MPI_FLOAT, &latent);
    MPI_Type_commit(&latent);
    MPI_Type_contiguous(static_cast<int>(kImageFloats), MPI_FLOAT, &image);
    MPI_Type_commit(&image);
  }
  ~Types() {
    MPI_Type_free(&latent);
    MPI_Type_free(&image);
  }
};

// num images on the ranks of `comm`: rank 0's `latents` scattered, every rank's share generated,
// the images brought into rank 0's `output`. A rank with `in_place` (rank 0 always) generates
// straight into its place in `output`, which it shares with rank 0; the others send theirs in
// MPI_Igatherv rounds as their batches land. Returns rank 0's wall-clock seconds from a barrier to
// the last image in place; the rank's own failure is returned in `outcome` (the run still completes
// every collective, so that no rank waits forever).
double distributed_generate(MPI_Comm comm, const Types& types, lab10::GpuWorker& worker,
                            std::span<const float> latents, int num,
                            const lab10::NodeOutput& output, bool in_place,
                            cudalabs::CaughtError& outcome) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<lab10::Share> shares(size);
  std::vector<int> writes_in_place(size);
  const int mine_in_place = in_place ? 1 : 0;
  MPI_Allgather(&mine_in_place, 1, MPI_INT, writes_in_place.data(), 1, MPI_INT, comm);
  int largest_sent = 0;
  outcome = {};
  for (int r = 0; r < size; ++r) {
    shares[r] = lab10::gpu_share(num, size, r);
    if (!writes_in_place[r]) largest_sent = std::max(largest_sent, shares[r].count);
  }
  const lab10::Share mine = shares[rank];
  const int batch = worker.batch();
  // Round k gathers image k * batch .. of every share that is sent (none when all ranks write in
  // place).
  const int rounds = (largest_sent + batch - 1) / batch;
  const std::span<float> mine_in_output =
      in_place ? output.floats().subspan(static_cast<std::size_t>(mine.first) * kImageFloats,
                                         static_cast<std::size_t>(mine.count) * kImageFloats)
               : std::span<float>{};

  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  std::vector<float> local_latents;
  const std::span<const float> my_latents =
      lab10::scatter_latents(comm, types.latent, shares, latents, local_latents);

  // The counts and places rank 0 receives in each round.
  std::vector<std::vector<int>> round_counts(rounds, std::vector<int>(size)),
      round_firsts(rounds, std::vector<int>(size));
  for (int k = 0; k < rounds; ++k) {
    for (int r = 0; r < size; ++r) {
      round_counts[k][r] =
          writes_in_place[r] ? 0 : std::clamp(shares[r].count - k * batch, 0, batch);
      round_firsts[k][r] = shares[r].first + std::min(k * batch, shares[r].count);
    }
  }
  std::vector<MPI_Request> requests(rounds, MPI_REQUEST_NULL);
  if (in_place) {
    // Rank 0's helper thread completes every round while the GPU works; another rank of its node
    // joins each round with nothing to send.
    for (int k = 0; k < rounds; ++k) {
      if (rank == 0) {
        MPI_Igatherv(MPI_IN_PLACE, 0, types.image, output.floats().data(), round_counts[k].data(),
                     round_firsts[k].data(), types.image, 0, comm, &requests[k]);
      } else {
        MPI_Igatherv(nullptr, 0, types.image, nullptr, nullptr, nullptr, types.image, 0, comm,
                     &requests[k]);
      }
    }
    std::thread helper([&] { MPI_Waitall(rounds, requests.data(), MPI_STATUSES_IGNORE); });
    outcome =
        cudalabs::catch_error([&] { worker.generate(my_latents, mine.count, mine_in_output); });
    helper.join();
  } else {
    // The pipeline thread only announces landed batches; a helper thread, the only one calling MPI
    // meanwhile, joins each round as its images land and keeps the transfers moving (shared-memory
    // transfers advance only while the sender is inside MPI).
    std::vector<float> local_images(static_cast<std::size_t>(mine.count) * kImageFloats);
    std::atomic<int> landed{0};
    std::atomic<bool> generating{true};
    std::thread helper([&] {
      int posted = 0;
      auto post_until = [&](int round_end) {
        for (; posted < round_end; ++posted) {
          const float* from =
              local_images.data() +
              static_cast<std::size_t>(std::min(posted * batch, mine.count)) * kImageFloats;
          MPI_Igatherv(from, round_counts[posted][rank], types.image, nullptr, nullptr, nullptr,
                       types.image, 0, comm, &requests[posted]);
        }
      };
      while (posted < rounds) {
        const bool finished = !generating.load(std::memory_order_acquire);
        // After the pipeline ends (a failure too), every remaining round is joined: rank 0 waits
        // for all.
        post_until(finished ? rounds : landed.load(std::memory_order_acquire));
        int done = 0;
        MPI_Testall(posted, requests.data(), &done, MPI_STATUSES_IGNORE);
      }
      MPI_Waitall(rounds, requests.data(), MPI_STATUSES_IGNORE);
    });
    outcome = cudalabs::catch_error([&] {
      worker.generate(my_latents, mine.count, local_images, [&](int first, int count) {
        landed.store((first + count + batch - 1) / batch, std::memory_order_release);
      });
    });
    generating.store(false, std::memory_order_release);
    helper.join();
  }
  // What the ranks of rank 0's node wrote is visible to rank 0 after this barrier.
  if (in_place) output.sync();
  MPI_Barrier(comm);
  if (rank == 0) output.sync();
  return MPI_Wtime() - start;
}

// ---- The program ----

// What one rank knows, phase by phase.
struct RankState {
  int rank = 0, size = 1;
  std::string label;  // how rank 0 names this rank in an error line
  Options o;
  Placement placement;
  std::uint64_t seed = 0;
  std::vector<int> scaling_nums, rank_counts;
  cudalabs::ComputePrecision precision = cudalabs::ComputePrecision::kFp32;  // --precision
  lab09::PrecisionBackend backend;  // its layers on this rank's GPU (none for FP32)
  dcgan::Weights weights;
  std::string weights_text;
  dcgan::Latents latents;  // rank 0's
  std::string latents_text;
  int num = 0, largest_num = 0;
  std::unique_ptr<lab10::GpuWorker> worker;
  std::unique_ptr<lab10::NodeOutput> output;
  bool in_place = false;  // writes its images straight into rank 0's output
};

// Runs one phase on every rank, then the checkpoint: 0 when every rank succeeded, else the exit
// code (rank 0 has printed the failing rank's line).
int phase(RankState& s, const std::function<void()>& body) {
  return lab10::checkpoint(MPI_COMM_WORLD, cudalabs::catch_error(body), cudalabs::program_name(),
                           s.label)
      .code;
}

// Before any phase: the flags and what follows from them alone (the command line and the number
// of ranks, the same on every rank), so that every rank reaches the same verdict without a message.
void parse_run_flags(RankState& s, int argc, char** argv) {
  CLI::App app{
      "Lab 10: the DCGAN generator with one MPI rank per GPU. Rank 0 scatters the latent "
      "vectors, gathers the images, checks them and writes them; a scaling table times 1, 2, 4, "
      "... ranks."};
  register_flags(app, s.o);
  cudalabs::parse_flags(app, argc, argv);
  const lab10::CheckedRunFlags checked = lab10::check_run_flags(app, s.o.run);
  s.scaling_nums = checked.scaling_nums;
  s.seed = checked.seed;
  s.precision = checked.precision;
  lab09::check_precision_flag(s.precision);
  if (s.o.gather != "shared" && s.o.gather != "collective") {
    throw cudalabs::FlagError("--gather: '" + s.o.gather + "' (expected shared or collective)");
  }
  if (!s.o.scaling_ranks.empty()) {
    s.rank_counts = lab10::parse_int_list("--scaling-ranks", s.o.scaling_ranks, 1, s.size);
  } else {
    for (int g = 1; g < s.size; g *= 2) s.rank_counts.push_back(g);
    s.rank_counts.push_back(s.size);
  }
  if (s.o.simulate_nodes > 0 && s.size % s.o.simulate_nodes != 0) {
    throw cudalabs::FlagError("--simulate-nodes: " + std::to_string(s.size) +
                              " ranks do not split into " + std::to_string(s.o.simulate_nodes) +
                              " equal nodes");
  }
}

// Phase 1: placement, weights, and a GPU for this rank.
void place_rank(RankState& s) {
  s.placement = place(s.o, s.rank, s.size);
  s.label = "rank " + std::to_string(s.rank) + " (node " + std::to_string(s.placement.node) +
            ", GPU " + std::to_string(s.placement.local_rank) + ")";
  s.weights = dcgan::load_weights(s.o.run.inputs.weights, s.o.run.inputs.weights_seed,
                                  CUDALABS_TRAINED_WEIGHTS, s.weights_text);
  cudalabs::require_gpu();
  s.backend = lab09::precision_backend(s.precision);
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  if (s.placement.device >= present) {
    const bool simulated = s.o.simulate_nodes > 0;
    throw std::invalid_argument("no GPU for " + std::string(simulated ? "rank " : "local rank ") +
                                std::to_string(simulated ? s.rank : s.placement.local_rank) +
                                ": this node has " + std::to_string(present) +
                                " (start at most one rank per GPU)");
  }
}

// Phase 2 (rank 0): the latent vectors, and the largest run of the table.
void load_latents(RankState& s) {
  if (s.rank != 0) return;
  s.latents = dcgan::load_latents(s.o.run.inputs.input, s.o.run.inputs.num, s.seed, s.latents_text);
  s.num = s.latents.count;
  s.largest_num = std::max(
      s.num,
      s.scaling_nums.empty() ? 0 : *std::max_element(s.scaling_nums.begin(), s.scaling_nums.end()));
  lab10::require_run_memory(s.num, s.largest_num);
}

void make_worker(RankState& s) {
  const int batch = s.o.run.batch > 0 ? s.o.run.batch : std::min(1024, s.largest_num);
  const int copy_threads = std::max(1, omp_get_max_threads() / s.placement.ranks_on_node);
  s.worker = std::make_unique<lab10::GpuWorker>(s.placement.device, s.weights, batch, copy_threads,
                                                s.backend);
}

// Rank 0's output, big enough for every run, in memory its node's ranks share (one window for the
// whole program: its pages are mapped once, not per run). Its node's ranks write in place with
// --gather shared; the others always send.
int make_output(RankState& s) {
  s.in_place = s.rank == 0 || (s.placement.node == 0 && s.o.gather == "shared");
  MPI_Comm node0 = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, s.placement.node == 0 ? 0 : MPI_UNDEFINED, s.rank, &node0);
  const int code = phase(s, [&] {
    s.output = std::make_unique<lab10::NodeOutput>(node0, static_cast<std::size_t>(s.largest_num));
  });
  if (node0 != MPI_COMM_NULL) MPI_Comm_free(&node0);
  return code;
}

// One row of [DCGAN-SHPC]'s rank table, as it travels to rank 0: a struct with its own MPI
// datatype.
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

// The other labs' kernels this program runs: lab 09's generator, lab 07's GEMM, and those of its
// precisions (lab 11's in the finished programs).
std::vector<cudalabs::EarlierLab> built_on() {
  std::vector<cudalabs::EarlierLab> labs{{"09", cudalabs_lab09_kernels_build()},
                                         {"07", cudalabs_lab07_kernels_build()}};
  for (const cudalabs::EarlierLab& lab : lab09::precision_labs()) labs.push_back(lab);
  return labs;
}

// [DCGAN-SHPC]'s rank table (which rank runs on which node and GPU) and the run's inputs, on rank
// 0.
void print_rank_table(std::ostream& out, const RankState& s) {
  RankRow mine{s.placement.node, s.placement.local_rank, s.placement.device, {}};
  std::snprintf(mine.name, sizeof mine.name, "%s",
                cudalabs::device_name(s.placement.device).c_str());
  const RankRowType row_type;
  std::vector<RankRow> rows(s.rank == 0 ? s.size : 0);
  MPI_Gather(&mine, 1, row_type.type, rows.data(), 1, row_type.type, 0, MPI_COMM_WORLD);
  out << "dcgan_mpi: " << s.size << " rank(s), one GPU each"
      << (s.o.simulate_nodes > 0 ? " (nodes simulated)" : "") << "\n";
  cudalabs::TextTable table({{"rank", true},
                             {"node", true},
                             {"GPU of node", true},
                             {"CUDA device", true},
                             {"name", false}});
  for (std::size_t r = 0; r < rows.size(); ++r) {
    table.add_row({std::to_string(r), std::to_string(rows[r].node),
                   std::to_string(rows[r].local_rank), std::to_string(rows[r].device),
                   rows[r].name});
  }
  if (s.rank == 0) table.print(out);
  out << "weights: " << s.weights_text << "\nlatents: " << s.latents_text << "\nimages: " << s.num
      << ", batches of up to " << s.worker->batch() << " per GPU\ngather: "
      << (s.o.gather == "shared" ? "the ranks of rank 0's node write into its output (shared "
                                   "memory), other nodes' send"
                                 : "every rank but 0 sends its images (MPI_Igatherv)")
      << "\n"
      << cudalabs::earlier_labs_line(built_on(),
                                     std::string(cudalabs_lab10_kernels_build()) == "student")
      << "\n";
}

// Phase 3: the checked run into the poisoned output; rank 0 checks and writes the images. Returns
// the exit code of a failed rank, else 0, with `passed` agreed by every rank.
int checked_run(std::ostream& out, RankState& s, const Types& types, bool& passed) {
  const std::span<float> images =
      s.rank == 0 ? s.output->floats().first(static_cast<std::size_t>(s.num) * kImageFloats)
                  : std::span<float>{};
  std::fill(images.begin(), images.end(), std::nanf(""));
  if (const int code = phase(s, [&] { s.worker->poison(); }); code != 0) return code;
  cudalabs::CaughtError outcome;
  const double first_seconds = distributed_generate(
      MPI_COMM_WORLD, types, *s.worker, s.latents.values, s.num, *s.output, s.in_place, outcome);
  const int code =
      lab10::checkpoint(MPI_COMM_WORLD, outcome, cudalabs::program_name(), s.label).code;
  if (code != 0) return code;
  int verdict = 1;
  if (s.rank == 0) {
    bool unwritten = false;
    std::function<void(std::span<float>)> one_gpu;
    if (s.size > 1)
      one_gpu = [&](std::span<float> single) {
        s.worker->generate(s.latents.values, s.num, single);
      };
    verdict =
        lab10::check_run(out, s.weights, s.latents.values, images, s.num, s.o.run.check_images,
                         one_gpu, "rank 0's GPU alone", unwritten, s.precision);
    out << "first run: " << s.num << " images in "
        << cudalabs::TextTable::number(first_seconds * 1e3, 2) << " ms (untimed warm-up)\n";
    // Written now: the table's runs reuse the output window.
    dcgan::write_requested_images(out, s.o.run.output, s.o.run.raw, images, s.num, s.o.run.columns);
  }
  MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
  passed = verdict != 0;
  return 0;
}

// Phase 4: [DCGAN-SHPC]'s Table 4 over the first g ranks, g in rank_counts; rank 0 prints and
// records it. Returns the exit code of a failed rank, else 0.
int scaling_runs(std::ostream& out, RankState& s, const Types& types, int argc, char** argv) {
  dcgan::Latents table_latents;
  if (s.rank == 0) {
    std::string unused;
    table_latents =
        dcgan::load_latents("", s.largest_num, cudalabs::derive_seed(s.seed, "scaling"), unused);
  }
  // The kit's host clock (common/host_timing.h): one warm-up, then --repetitions runs, the median.
  const std::string flavour = s.o.gather == "shared" ? "mpi" : "mpi-collective";
  std::vector<cudalabs::HostMedian> medians;
  for (int g : s.rank_counts) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, s.rank < g ? 0 : MPI_UNDEFINED, s.rank, &sub);
    cudalabs::CaughtError step;
    if (sub != MPI_COMM_NULL) {
      for (int n : s.scaling_nums) {
        // Every rank makes every run, failed or not, so that the collectives stay matched.
        const auto run = [&, n] {
          cudalabs::CaughtError run_outcome;
          const double seconds = distributed_generate(sub, types, *s.worker, table_latents.values,
                                                      n, *s.output, s.in_place, run_outcome);
          if (step.code == 0) step = run_outcome;
          return seconds;
        };
        const cudalabs::HostMedian cell = cudalabs::time_on_host(
            lab10::scaling_run(flavour, n, g, run, {}), s.o.run.driver.timing.repetitions);
        if (s.rank == 0 && step.code == 0) medians.push_back(cell);
      }
      MPI_Comm_free(&sub);
    }
    const int code =
        lab10::checkpoint(MPI_COMM_WORLD, step, cudalabs::program_name(), s.label).code;
    if (code != 0) return code;
  }
  if (s.rank != 0) return 0;
  std::vector<int> devices(s.size);
  for (int r = 0; r < s.size; ++r) devices[r] = r;  // one machine: rank r on GPU r
  std::map<std::string, std::string> context =
      lab10::record_context(argc, argv, devices, cudalabs::built_from_commit());
  context["ranks"] = std::to_string(s.size);
  context["seed"] = std::to_string(s.seed);
  context["precision"] = cudalabs::precision_name(s.precision);
  context["weights"] = s.weights_text;
  context["gather"] = s.o.gather;
  // --gather collective is recorded apart (lab10_mpi-collective_<device>.json,
  // lab10/mpi-collective/...). No recheck yet: the record's "rechecks" is empty.
  lab10::report_scaling(out, s.o.run, "lab10_" + flavour,
                        cudalabs::device_slug(cudalabs::device_name(s.placement.device)), context,
                        medians, {});
  return 0;
}

int run(int argc, char** argv, int thread_support) {
  RankState s;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  s.label = "rank " + std::to_string(s.rank);
  const Types types;
  // Rank 0 speaks for the run: the others print nothing (their --help too); their std::cout gets
  // its own buffer back before `quiet` goes.
  std::ostringstream quiet;
  struct RestoreCout {
    std::streambuf* saved;
    ~RestoreCout() { std::cout.rdbuf(saved); }
  } restore{s.rank != 0 ? std::cout.rdbuf(quiet.rdbuf()) : std::cout.rdbuf()};
  std::ostream& out = std::cout;

  // The flags before anything else, with no checkpoint (a part a student writes): rank 0 answers
  // (the help, or one line through guarded_main), the others stop quietly with the same code.
  if (s.rank == 0) {
    parse_run_flags(s, argc, argv);
  } else if (const cudalabs::CaughtError parsed =
                 cudalabs::catch_error([&] { parse_run_flags(s, argc, argv); });
             parsed.help || parsed.code != cudalabs::kExitOk) {
    return parsed.code;
  }
  if (thread_support < MPI_THREAD_SERIALIZED) {
    if (s.rank == 0)
      cudalabs::print_error_line(
          "this MPI library does not allow a helper thread (MPI_THREAD_SERIALIZED)");
    return cudalabs::kExitFailed;
  }
  if (const int code = phase(s, [&] { place_rank(s); }); code != 0) return code;
  if (const int code = phase(s, [&] { load_latents(s); }); code != 0) return code;
  MPI_Bcast(&s.num, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&s.largest_num, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (const int code = phase(s, [&] { make_worker(s); }); code != 0) return code;
  if (const int code = make_output(s); code != 0) return code;
  print_rank_table(out, s);

  bool passed = false;
  if (const int code = checked_run(out, s, types, passed); code != 0) return code;
  if (passed && !s.scaling_nums.empty()) {
    if (const int code = scaling_runs(out, s, types, argc, argv); code != 0) return code;
  }
  return passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  const int code = cudalabs::guarded_main(argc, argv, [&] {
    // A part of the program not written yet (lab 10's MPI TODOs) stops every rank at the same
    // point; rank 0 says which.
    try {
      return run(argc, argv, provided);
    } catch (const lab10::NotImplemented& missing) {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) cudalabs::print_error_line(missing.what());
      return static_cast<int>(cudalabs::kExitFailed);
    }
  });
  MPI_Finalize();
  return code;
}
