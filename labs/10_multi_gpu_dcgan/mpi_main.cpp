// Lab 10's MPI program (`lab10_mpi` with the student's gpu_share, and `dcgan_mpi`, the finished
// program of programs/, with the solution's and lab 11's layers for --precision tf32 and bf16:
// labs/09_dcgan/precision_backend.h): one rank per GPU, on one node or many, [DCGAN-SHPC] §2.6.
//
//   mpirun -np R [--bind-to none] dcgan_mpi [--num N | --input z.cldz] [--output grid.png] ...
//
// - Each rank picks its GPU by its rank among the ranks of its node (rank_table.h), so the same
//   command works for one node or many; --simulate-nodes K makes one machine stand for K nodes.
// - The three MPI parts a student writes (the solution's in solutions/10_multi_gpu_dcgan/):
//   scatter_latents (scatter.cpp), NodeOutput (node_output.cpp) and checkpoint (checkpoint.cpp).
// - One run (distributed_run.h): rank 0 scatters the latent vectors; the ranks of its node write
//   their images into its shared output window (--gather shared), the others send theirs in rounds
//   of MPI_Igatherv while their GPUs compute (the slow path within one node: the handout measures
//   both).
// - Every phase ends at a checkpoint: if any rank failed (no GPU, a bad device, not enough memory,
//   a bad file), rank 0 prints one line naming the rank and its error, and every rank exits
//   non-zero; none is left waiting in a collective.
// - Rank 0 checks sampled images against the CPU reference and the gathered output against its own
//   GPU's, times [DCGAN-SHPC]'s Table 4 (num_to_gen x ranks, end to end), checks every cell again
//   where it was timed (mpi_table.h), prints and records the table, and writes the images.
#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/dcgan_images.h"
#include "common/dcgan_inputs.h"
#include "common/device_info.h"
#include "common/run_protocol.h"
#include "common/text_table.h"
#include "labs/09_dcgan/precision_backend.h"
#include "labs/10_multi_gpu_dcgan/built_on.h"
#include "labs/10_multi_gpu_dcgan/checkpoint.h"
#include "labs/10_multi_gpu_dcgan/distributed_run.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/mpi_flags.h"
#include "labs/10_multi_gpu_dcgan/mpi_table.h"
#include "labs/10_multi_gpu_dcgan/node_output.h"
#include "labs/10_multi_gpu_dcgan/not_implemented.h"
#include "labs/10_multi_gpu_dcgan/rank_table.h"
#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using dcgan::kImageFloats;

// What one rank knows, phase by phase.
struct RankState {
  int rank = 0, size = 1;
  std::string label;  // how rank 0 names this rank in an error line
  lab10::MpiFlags o;
  lab10::Placement placement;
  lab10::CheckedMpiFlags checked;  // the seed, the table's rows and columns, --precision, --devices
  lab09::PrecisionBackend backend;  // its layers on this rank's GPU (none for FP32)
  dcgan::Weights weights;
  std::string weights_text;
  dcgan::Latents latents;  // rank 0's
  std::string latents_text;
  int num = 0, largest_num = 0;
  std::unique_ptr<lab10::GpuWorker> worker;
  std::unique_ptr<lab10::WorkerGenerator> generator;
  std::unique_ptr<lab10::NodeOutput> output;
  bool in_place = false;          // writes its images straight into rank 0's output
  std::vector<int> rank_devices;  // rank 0's: each rank's CUDA device (the record's)
};

// Runs one phase on every rank, then the checkpoint: 0 when every rank succeeded, else the exit
// code (rank 0 has printed the failing rank's line).
int phase(RankState& s, const std::function<void()>& body) {
  return lab10::checkpoint(MPI_COMM_WORLD, cudalabs::catch_error(body), cudalabs::program_name(),
                           s.label)
      .code;
}

// Phase 1: placement, weights, and a GPU for this rank.
void place_rank(RankState& s) {
  s.placement = lab10::place(s.o.simulate_nodes, s.checked.devices);
  s.label = "rank " + std::to_string(s.rank) + " (node " + std::to_string(s.placement.node) +
            ", GPU " + std::to_string(s.placement.local_rank) + ")";
  s.weights = dcgan::load_weights(s.o.run.inputs.weights, s.o.run.inputs.weights_seed,
                                  CUDALABS_TRAINED_WEIGHTS, s.weights_text);
  cudalabs::require_gpu();
  s.backend = lab09::precision_backend(s.checked.run.precision);
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  if (s.placement.device >= present) {
    const bool simulated = s.o.simulate_nodes > 0;
    throw std::invalid_argument(
        s.checked.devices.empty()
            ? "no GPU for " + std::string(simulated ? "rank " : "local rank ") +
                  std::to_string(simulated ? s.rank : s.placement.local_rank) + ": this node has " +
                  std::to_string(present) + " (start at most one rank per GPU)"
            : "--devices: GPU " + std::to_string(s.placement.device) + " does not exist (" +
                  std::to_string(present) + " present)");
  }
}

// Phase 2 (rank 0): the latent vectors, and the largest run of the table.
void load_latents(RankState& s) {
  if (s.rank != 0) return;
  s.latents = dcgan::load_latents(s.o.run.inputs.input, s.o.run.inputs.num, s.checked.run.seed,
                                  s.latents_text);
  s.num = s.latents.count;
  s.largest_num = std::max(s.num, s.checked.run.scaling_nums.empty()
                                      ? 0
                                      : *std::max_element(s.checked.run.scaling_nums.begin(),
                                                          s.checked.run.scaling_nums.end()));
  lab10::require_run_memory(s.num, s.largest_num);
}

void make_worker(RankState& s) {
  const int batch = s.o.run.batch > 0 ? s.o.run.batch : std::min(1024, s.largest_num);
  const int copy_threads = std::max(1, omp_get_max_threads() / s.placement.ranks_on_node);
  s.worker = std::make_unique<lab10::GpuWorker>(s.placement.device, s.weights, batch, copy_threads,
                                                s.backend);
  s.generator = std::make_unique<lab10::WorkerGenerator>(*s.worker);
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

// [DCGAN-SHPC]'s rank table (which rank runs on which node and GPU) and the run's inputs, on rank
// 0.
void print_header(std::ostream& out, RankState& s) {
  out << "dcgan_mpi: " << s.size << " rank(s), one GPU each"
      << (s.o.simulate_nodes > 0 ? " (nodes simulated)" : "") << "\n";
  s.rank_devices = lab10::print_rank_table(out, s.placement);
  out << "weights: " << s.weights_text << "\nlatents: " << s.latents_text << "\nimages: " << s.num
      << ", batches of up to " << s.worker->batch() << " per GPU\ngather: "
      << (s.o.gather == "shared" ? "the ranks of rank 0's node write into its output (shared "
                                   "memory), other nodes' send"
                                 : "every rank but 0 sends its images (MPI_Igatherv)")
      << "\n"
      << lab10::earlier_labs_line() << "\n";
}

// Phase 3: the checked run into the poisoned output; rank 0 checks and writes the images. Returns
// the exit code of a failed rank, else 0, with `passed` agreed by every rank.
int checked_run(std::ostream& out, RankState& s, const lab10::ImageTypes& types, bool& passed) {
  const std::span<float> images =
      s.rank == 0 ? s.output->floats().first(static_cast<std::size_t>(s.num) * kImageFloats)
                  : std::span<float>{};
  std::fill(images.begin(), images.end(), std::nanf(""));
  if (const int code = phase(s, [&] { s.worker->poison(); }); code != 0) return code;
  cudalabs::CaughtError outcome;
  const double first_seconds = lab10::distributed_generate(
      MPI_COMM_WORLD, types, *s.generator, s.latents.values, s.num, *s.output, s.in_place, outcome);
  const int code =
      lab10::checkpoint(MPI_COMM_WORLD, outcome, cudalabs::program_name(), s.label).code;
  if (code != 0) return code;
  bool verdict = true;
  if (s.rank == 0) {
    bool unwritten = false;
    std::function<void(std::span<float>)> one_gpu;
    if (s.size > 1)
      one_gpu = [&](std::span<float> single) {
        s.worker->generate(s.latents.values, s.num, single);
      };
    verdict =
        lab10::check_run(out, s.weights, s.latents.values, images, s.num, s.o.run.check_images,
                         one_gpu, "rank 0's GPU alone", unwritten, s.checked.run.precision);
    out << "first run: " << s.num << " images in "
        << cudalabs::TextTable::number(first_seconds * 1e3, 2) << " ms (untimed warm-up)\n";
    // Written now: the table's runs reuse the output window.
    dcgan::write_requested_images(out, s.o.run.output, s.o.run.raw, images, s.num, s.o.run.columns);
  }
  passed = lab10::agreed_by_rank0(verdict);
  return 0;
}

// Phase 4: [DCGAN-SHPC]'s Table 4 over the first g ranks, g in rank_counts, every cell checked
// again where it was timed; rank 0 prints and records it. Returns the exit code of a failed rank,
// else 0, with `passed` (every recheck) agreed by every rank.
int scaling_runs(std::ostream& out, RankState& s, const lab10::ImageTypes& types, int argc,
                 char** argv, bool& passed) {
  const std::string flavour = s.o.gather == "shared" ? "mpi" : "mpi-collective";
  const lab10::ScalingTable table{s.weights,
                                  s.checked.run.seed,
                                  s.checked.run.precision,
                                  s.o.run.check_images,
                                  s.checked.run.scaling_nums,
                                  s.checked.rank_counts};
  lab10::MpiTable cells(
      table,
      {*s.generator, types, *s.output, s.in_place, flavour, cudalabs::program_name(), s.label},
      s.largest_num);
  cudalabs::TimedSession session(s.o.run.driver.timing);
  cells.add_cells(session);
  const std::vector<cudalabs::HostMedian> medians = session.time_on_host();
  if (const int code = cells.timing_outcome().code; code != 0) return code;
  const std::map<std::string, cudalabs::Recheck>& rechecks = session.recheck_all(out);
  passed = lab10::agreed_by_rank0(session.rechecks_passed());
  if (s.rank != 0) return 0;
  std::map<std::string, std::string> context =
      lab10::record_context(argc, argv, s.rank_devices, cudalabs::built_from_commit());
  context["ranks"] = std::to_string(s.size);
  context["seed"] = std::to_string(s.checked.run.seed);
  context["precision"] = cudalabs::precision_name(s.checked.run.precision);
  context["weights"] = s.weights_text;
  context["gather"] = s.o.gather;
  // --gather collective is recorded apart (lab10_mpi-collective_<device>.json,
  // lab10/mpi-collective/...).
  lab10::report_scaling(out, s.o.run, "lab10_" + flavour,
                        cudalabs::device_slug(cudalabs::device_name(s.placement.device)), context,
                        medians, rechecks);
  return 0;
}

int run(int argc, char** argv, int thread_support) {
  RankState s;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  s.label = "rank " + std::to_string(s.rank);
  const lab10::ImageTypes types;
  // Rank 0 speaks for the run: the others print nothing (their --help too); their std::cout gets
  // its own buffer back before `quiet` goes.
  std::ostringstream quiet;
  struct RestoreCout {
    std::streambuf* saved;
    ~RestoreCout() { std::cout.rdbuf(saved); }
  } restore{s.rank != 0 ? std::cout.rdbuf(quiet.rdbuf()) : std::cout.rdbuf()};
  std::ostream& out = std::cout;

  // The flags before anything else, with no checkpoint (a part a student writes): the command line
  // and the number of ranks alone decide, so every rank reaches the same verdict without a message.
  // Rank 0 answers (the help, or one line through guarded_main), the others stop quietly.
  const auto parse = [&] { s.checked = lab10::parse_mpi_flags(argc, argv, s.size, s.o); };
  if (s.rank == 0) {
    parse();
  } else if (const cudalabs::CaughtError parsed = cudalabs::catch_error(parse);
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
  print_header(out, s);

  bool passed = false;
  if (const int code = checked_run(out, s, types, passed); code != 0) return code;
  if (passed && !s.checked.run.scaling_nums.empty()) {
    if (const int code = scaling_runs(out, s, types, argc, argv, passed); code != 0) return code;
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
