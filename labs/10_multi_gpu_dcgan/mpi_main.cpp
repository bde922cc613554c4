// Lab 10's MPI program (`lab10_mpi` with the student's gpu_share, `dcgan_mpi` with the solution's): one
// rank per GPU, on one node or many, [DCGAN-SHPC] §2.6.
//
//   mpirun -np R [--bind-to none] dcgan_mpi [--num N | --input z.cldz] [--output grid.png] ...
//
// - Each rank picks its GPU by its rank among the ranks of its node (MPI_Comm_split_type with
//   MPI_COMM_TYPE_SHARED), so the same command works for one node or many. --simulate-nodes K makes
//   one machine stand for K nodes: consecutive ranks form a node, as in [DCGAN-SHPC]'s rank tables.
// - Rank 0 reads or draws the latent vectors and scatters each rank its gpu_share (MPI_Scatterv).
// - Rank 0's output lives in an MPI-3 shared-memory window of rank 0's node (NodeOutput): rank 0 and,
//   with --gather shared (the default), every rank of its node run lab 09's pipeline straight into
//   their places there; a barrier tells rank 0 they are done. No byte of theirs is sent.
// - A rank of another node (or, with --gather collective, every rank but 0) sends its images: as each
//   of its batches lands in host memory, it joins that round's MPI_Igatherv, so the images travel to
//   rank 0 while the GPUs compute the next ones. On those ranks and on rank 0 a helper thread makes
//   the MPI calls while the pipeline runs (MPI_THREAD_SERIALIZED: it is the only thread calling MPI
//   then): on rank 0 it waits on the gathers, elsewhere it joins each round as its batch lands.
//   Within one node that path is the slow one: the shared-memory transport copies every byte twice
//   through small buffers (the handout measures both).
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
#include "common/event_timer.h"
#include "common/random_fill.h"
#include "common/text_table.h"
#include "labs/10_multi_gpu_dcgan/checkpoint.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/node_output.h"
#include "labs/10_multi_gpu_dcgan/run_flags.h"
#include "labs/10_multi_gpu_dcgan/scaling.h"

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
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

constexpr const char* kProgram = "dcgan_mpi";

struct Options {
  lab10::RunFlags run;
  int simulate_nodes = 0;
  std::string scaling_ranks;
  std::string gather = "shared";
};

void register_flags(CLI::App& app, Options& o) {
  lab10::add_run_flags(app, o.run, "lab10_mpi");
  cudalabs::add_integer_flag(app, "--simulate-nodes", o.simulate_nodes, 1, 1024,
                             "Treat this machine as K nodes of R / K consecutive ranks each ([DCGAN-SHPC]'s rank tables)");
  app.add_option("--scaling-ranks", o.scaling_ranks,
                 "Rank counts of the scaling table (default 1, 2, 4, ... up to R, and R): the first ranks of the run");
  app.add_option("--gather", o.gather,
                 "How images reach rank 0 from the ranks of its node: 'shared' (they write into rank 0's output, "
                 "an MPI shared-memory window) or 'collective' (MPI_Igatherv, like the ranks of other nodes)");
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
  if (o.simulate_nodes > 0) {
    if (size % o.simulate_nodes != 0) {
      throw cudalabs::FlagError("--simulate-nodes: " + std::to_string(size) + " ranks do not split into " +
                                std::to_string(o.simulate_nodes) + " equal nodes");
    }
    p.ranks_on_node = size / o.simulate_nodes;
    p.node = rank / p.ranks_on_node;
    p.local_rank = rank % p.ranks_on_node;
    // All "nodes" share this machine's GPUs: node n's GPU g is physical GPU n * ranks_on_node + g.
    p.device = rank;
  } else {
    // The ranks that share memory with this one are the ranks of its node; the lowest ranks take the
    // lowest GPUs. Nodes are numbered by their lowest rank.
    MPI_Comm node_comm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm);
    MPI_Comm_rank(node_comm, &p.local_rank);
    MPI_Comm_size(node_comm, &p.ranks_on_node);
    // A node's number is how many node leaders (local rank 0) have a lower world rank; the ranks of a
    // node need not be consecutive, so it travels from the leader to the others.
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

// num images on the ranks of `comm`: rank 0's `latents` scattered, every rank's share generated, the
// images brought into rank 0's `output`. A rank with `in_place` (rank 0 always) generates straight
// into its place in `output`, which it shares with rank 0; the others send theirs in MPI_Igatherv
// rounds as their batches land. Returns rank 0's wall-clock seconds from a barrier to the last image
// in place; the rank's own failure is returned in `outcome` (the run still completes every
// collective, so that no rank waits forever).
double distributed_generate(MPI_Comm comm, const Types& types, lab10::GpuWorker& worker, std::span<const float> latents,
                            int num, const lab10::NodeOutput& output, bool in_place, cudalabs::CaughtError& outcome) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<lab10::Share> shares(size);
  std::vector<int> counts(size), firsts(size), writes_in_place(size);
  const int mine_in_place = in_place ? 1 : 0;
  MPI_Allgather(&mine_in_place, 1, MPI_INT, writes_in_place.data(), 1, MPI_INT, comm);
  int largest_sent = 0;
  outcome = {};
  for (int r = 0; r < size; ++r) {
    shares[r] = lab10::gpu_share(num, size, r);
    counts[r] = shares[r].count;
    firsts[r] = shares[r].first;
    if (!writes_in_place[r]) largest_sent = std::max(largest_sent, shares[r].count);
  }
  const lab10::Share mine = shares[rank];
  const int batch = worker.batch();
  // Round k gathers image k * batch .. of every share that is sent (none when all ranks write in place).
  const int rounds = (largest_sent + batch - 1) / batch;
  const std::span<float> mine_in_output =
      in_place ? output.floats().subspan(static_cast<std::size_t>(mine.first) * kImageFloats,
                                         static_cast<std::size_t>(mine.count) * kImageFloats)
               : std::span<float>{};

  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  std::vector<float> local_latents(rank == 0 ? 0 : static_cast<std::size_t>(mine.count) * kLatent);
  MPI_Scatterv(latents.data(), counts.data(), firsts.data(), types.latent,
               rank == 0 ? MPI_IN_PLACE : static_cast<void*>(local_latents.data()), mine.count, types.latent, 0, comm);
  const std::span<const float> my_latents =
      rank == 0 ? latents.first(static_cast<std::size_t>(mine.count) * kLatent) : std::span<const float>(local_latents);

  // The counts and places rank 0 receives in each round.
  std::vector<std::vector<int>> round_counts(rounds, std::vector<int>(size)), round_firsts(rounds, std::vector<int>(size));
  for (int k = 0; k < rounds; ++k) {
    for (int r = 0; r < size; ++r) {
      round_counts[k][r] = writes_in_place[r] ? 0 : std::clamp(shares[r].count - k * batch, 0, batch);
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
        MPI_Igatherv(nullptr, 0, types.image, nullptr, nullptr, nullptr, types.image, 0, comm, &requests[k]);
      }
    }
    std::thread helper([&] { MPI_Waitall(rounds, requests.data(), MPI_STATUSES_IGNORE); });
    outcome = cudalabs::catch_error([&] { worker.generate(my_latents, mine.count, mine_in_output); });
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
              local_images.data() + static_cast<std::size_t>(std::min(posted * batch, mine.count)) * kImageFloats;
          MPI_Igatherv(from, round_counts[posted][rank], types.image, nullptr, nullptr, nullptr, types.image, 0, comm,
                       &requests[posted]);
        }
      };
      while (posted < rounds) {
        const bool finished = !generating.load(std::memory_order_acquire);
        // After the pipeline ends (a failure too), every remaining round is joined: rank 0 waits for all.
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

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Types types;
  // Rank 0 speaks for the run: the others print nothing (their --help too); their std::cout gets its
  // own buffer back before `quiet` goes.
  std::ostringstream quiet;
  struct RestoreCout {
    std::streambuf* saved;
    ~RestoreCout() { std::cout.rdbuf(saved); }
  } restore{rank != 0 ? std::cout.rdbuf(quiet.rdbuf()) : std::cout.rdbuf()};
  std::ostream& out = std::cout;

  // Phase 1: flags, placement, weights, the worker (every rank).
  Options o;
  Placement placement;
  dcgan::Weights weights;
  std::string weights_text;
  std::unique_ptr<lab10::GpuWorker> worker;
  std::vector<int> scaling_nums, rank_counts;
  std::uint64_t seed = 0;
  std::string label = "rank " + std::to_string(rank);
  cudalabs::CaughtError step = cudalabs::catch_error([&] {
    CLI::App app{"dcgan_mpi (lab 10): the DCGAN generator with one MPI rank per GPU. Rank 0 scatters the latent "
                 "vectors, gathers the images, checks them and writes them; a scaling table times 1, 2, 4, ... ranks."};
    register_flags(app, o);
    cudalabs::reject_unknown_flags(cudalabs::parse_flags(app, argc, argv));
    const lab10::CheckedRunFlags checked = lab10::check_run_flags(app, o.run);
    scaling_nums = checked.scaling_nums;
    seed = checked.seed;
    if (o.gather != "shared" && o.gather != "collective") {
      throw cudalabs::FlagError("--gather: '" + o.gather + "' (expected shared or collective)");
    }
    if (!o.scaling_ranks.empty()) {
      rank_counts = lab10::parse_int_list("--scaling-ranks", o.scaling_ranks, 1, size);
    } else {
      for (int g = 1; g < size; g *= 2) rank_counts.push_back(g);
      rank_counts.push_back(size);
    }
    placement = place(o, rank, size);
    label = "rank " + std::to_string(rank) + " (node " + std::to_string(placement.node) + ", GPU " +
            std::to_string(placement.local_rank) + ")";
    weights = dcgan::load_weights(o.run.inputs.weights, o.run.inputs.weights_seed, CUDALABS_TRAINED_WEIGHTS, weights_text);
    cudalabs::require_gpu();
    int present = 0;
    CUDA_CHECK(cudaGetDeviceCount(&present));
    if (placement.device >= present) {
      throw std::invalid_argument("no GPU for " + std::string(o.simulate_nodes > 0 ? "rank " : "local rank ") +
                                  std::to_string(o.simulate_nodes > 0 ? rank : placement.local_rank) + ": this node has " +
                                  std::to_string(present) + " (start at most one rank per GPU)");
    }
  });
  cudalabs::CaughtError agreed = lab10::checkpoint(MPI_COMM_WORLD, step, kProgram, label);
  if (agreed.help) return cudalabs::kExitOk;
  if (agreed.code != 0) return agreed.code;

  // Phase 2: rank 0's latent vectors; everyone learns num and builds its worker.
  dcgan::Latents latents;
  std::string latents_text;
  int num = 0, largest_num = 0;
  step = cudalabs::catch_error([&] {
    if (rank == 0) {
      latents = dcgan::load_latents(o.run.inputs.input, o.run.inputs.num, seed, latents_text);
      num = latents.count;
      largest_num = num;
      for (int n : scaling_nums) largest_num = std::max(largest_num, n);
      lab10::require_run_memory(num, largest_num);
    }
  });
  agreed = lab10::checkpoint(MPI_COMM_WORLD, step, kProgram, label);
  if (agreed.code != 0) return agreed.code;
  MPI_Bcast(&num, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&largest_num, 1, MPI_INT, 0, MPI_COMM_WORLD);
  step = cudalabs::catch_error([&] {
    const int batch = o.run.batch > 0 ? o.run.batch : std::min(1024, largest_num);
    const int copy_threads = std::max(1, omp_get_max_threads() / placement.ranks_on_node);
    worker = std::make_unique<lab10::GpuWorker>(placement.device, weights, batch, copy_threads);
  });
  agreed = lab10::checkpoint(MPI_COMM_WORLD, step, kProgram, label);
  if (agreed.code != 0) return agreed.code;

  // Rank 0's output, big enough for every run, in memory its node's ranks share (one window for the
  // whole program: its pages are mapped once, not per run). Its node's ranks write in place with
  // --gather shared; the others always send.
  const bool in_place = rank == 0 || (placement.node == 0 && o.gather == "shared");
  std::unique_ptr<lab10::NodeOutput> output;
  {
    MPI_Comm node0 = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, placement.node == 0 ? 0 : MPI_UNDEFINED, rank, &node0);
    step = cudalabs::catch_error([&] { output = std::make_unique<lab10::NodeOutput>(node0, static_cast<std::size_t>(largest_num)); });
    if (node0 != MPI_COMM_NULL) MPI_Comm_free(&node0);
  }
  agreed = lab10::checkpoint(MPI_COMM_WORLD, step, kProgram, label);
  if (agreed.code != 0) return agreed.code;

  // [DCGAN-SHPC]'s rank table: which rank runs on which node and GPU.
  {
    constexpr int kText = 128;
    std::string text = std::to_string(placement.node) + "|" + std::to_string(placement.local_rank) + "|" +
                       std::to_string(placement.device) + "|" + cudalabs::device_name(placement.device);
    text.resize(kText, '\0');
    std::vector<char> texts(rank == 0 ? static_cast<std::size_t>(size) * kText : 0);
    MPI_Gather(text.data(), kText, MPI_CHAR, texts.data(), kText, MPI_CHAR, 0, MPI_COMM_WORLD);
    out << "dcgan_mpi: " << size << " rank(s), one GPU each" << (o.simulate_nodes > 0 ? " (nodes simulated)" : "")
        << "\n";
    cudalabs::TextTable table({{"rank", true}, {"node", true}, {"GPU of node", true}, {"CUDA device", true}, {"name", false}});
    for (int r = 0; r < (rank == 0 ? size : 0); ++r) {
      std::stringstream fields(std::string(texts.data() + static_cast<std::size_t>(r) * kText));
      std::string node, local, device, name;
      std::getline(fields, node, '|');
      std::getline(fields, local, '|');
      std::getline(fields, device, '|');
      std::getline(fields, name);
      table.add_row({std::to_string(r), node, local, device, name});
    }
    if (rank == 0) table.print(out);
    out << "weights: " << weights_text << "\nlatents: " << latents_text << "\nimages: " << num << ", batches of up to "
        << worker->batch() << " per GPU\ngather: "
        << (o.gather == "shared" ? "the ranks of rank 0's node write into its output (shared memory), other nodes' send"
                                 : "every rank but 0 sends its images (MPI_Igatherv)")
        << "\n";
  }

  // Phase 3: the checked run.
  // Poisoned first, so that an image nobody wrote fails the check.
  const std::span<float> images =
      rank == 0 ? output->floats().first(static_cast<std::size_t>(num) * kImageFloats) : std::span<float>{};
  std::fill(images.begin(), images.end(), std::nanf(""));
  const double first_seconds =
      distributed_generate(MPI_COMM_WORLD, types, *worker, latents.values, num, *output, in_place, step);
  agreed = lab10::checkpoint(MPI_COMM_WORLD, step, kProgram, label);
  if (agreed.code != 0) return agreed.code;
  int passed = 1;
  if (rank == 0) {
    bool unwritten = false;
    std::function<void(std::span<float>)> one_gpu;
    if (size > 1) one_gpu = [&](std::span<float> single) { worker->generate(latents.values, num, single); };
    passed = lab10::check_run(out, weights, latents.values, images, num, o.run.check_images, one_gpu,
                              "rank 0's GPU alone", unwritten)
                 ? 1
                 : 0;
    out << "first run: " << num << " images in " << cudalabs::TextTable::number(first_seconds * 1e3, 2)
        << " ms (untimed warm-up)\n";
    // Written now: the table's runs reuse the output window.
    dcgan::write_requested_images(out, o.run.output, o.run.raw, images, num, o.run.columns);
  }
  MPI_Bcast(&passed, 1, MPI_INT, 0, MPI_COMM_WORLD);

  // Phase 4: [DCGAN-SHPC]'s Table 4 over the first g ranks, g in rank_counts.
  if (passed && !scaling_nums.empty()) {
    dcgan::Latents table_latents;
    if (rank == 0) {
      std::string unused;
      table_latents = dcgan::load_latents("", largest_num, cudalabs::derive_seed(seed, "scaling"), unused);
    }
    std::vector<lab10::ScalingPoint> points;
    for (int g : rank_counts) {
      MPI_Comm sub;
      MPI_Comm_split(MPI_COMM_WORLD, rank < g ? 0 : MPI_UNDEFINED, rank, &sub);
      step = {};
      if (sub != MPI_COMM_NULL) {
        for (int n : scaling_nums) {
          std::vector<double> runs;
          // Every rank makes every run, failed or not, so that the collectives stay matched.
          for (int r = 0; r <= o.run.repetitions; ++r) {  // run 0 is the warm-up
            cudalabs::CaughtError run_outcome;
            const double seconds =
                distributed_generate(sub, types, *worker, table_latents.values, n, *output, in_place, run_outcome);
            if (r > 0) runs.push_back(seconds);
            if (step.code == 0) step = run_outcome;
          }
          if (rank == 0 && step.code == 0) points.push_back({n, g, cudalabs::median(runs), o.run.repetitions});
        }
        MPI_Comm_free(&sub);
      }
      agreed = lab10::checkpoint(MPI_COMM_WORLD, step, kProgram, label);
      if (agreed.code != 0) return agreed.code;
    }
    if (rank == 0) {
      std::vector<int> devices(size);
      for (int r = 0; r < size; ++r) devices[r] = r;  // one machine: rank r on GPU r
      std::map<std::string, std::string> context =
          lab10::record_context(argc, argv, devices, cudalabs::built_from_commit());
      context["ranks"] = std::to_string(size);
      context["seed"] = std::to_string(seed);
      context["weights"] = weights_text;
      context["gather"] = o.gather;
      // --gather collective is recorded apart (lab10_mpi-collective_<device>.json, lab10/mpi-collective/...).
      const std::string flavour = o.gather == "shared" ? "mpi" : "mpi-collective";
      lab10::report_scaling(out, o.run, "lab10_" + flavour, flavour,
                            cudalabs::device_slug(cudalabs::device_name(placement.device)), context, points);
    }
  }
  return passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int code = cudalabs::kExitFailed;
  if (provided < MPI_THREAD_SERIALIZED) {
    std::cerr << kProgram << ": this MPI library does not allow a helper thread (MPI_THREAD_SERIALIZED)\n";
  } else {
    code = cudalabs::guarded_main(kProgram, [&] { return run(argc, argv); });
  }
  MPI_Finalize();
  return code;
}
