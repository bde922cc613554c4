// Lab 10's MPI program (`lab10_mpi` with the student's gpu_share, and `dcgan_mpi`, the finished
// program of programs/, with the solution's and lab 11's layers for --precision tf32 and bf16:
// labs/09_dcgan/precision_backend.h): one rank per GPU, on one node or many, [DCGAN-SHPC] §2.6.
//
//   mpirun -np R [--bind-to none] dcgan_mpi [--num N | --input z.cldz] [--output grid.png] ...
//
// - Each rank picks its GPU by its rank among the ranks of its node (rank_table.h), so the same
//   command works for one node or many; --simulate-nodes K makes one machine stand for K nodes.
//   Its phases up to the first run (placement, weights, latents, worker, output) are mpi_rank.h's.
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
#include "common/dcgan_images.h"
#include "common/device_info.h"
#include "common/run_protocol.h"
#include "labs/10_multi_gpu_dcgan/built_on.h"
#include "labs/10_multi_gpu_dcgan/checkpoint.h"
#include "labs/10_multi_gpu_dcgan/distributed_run.h"
#include "labs/10_multi_gpu_dcgan/mpi_rank.h"
#include "labs/10_multi_gpu_dcgan/mpi_table.h"
#include "labs/10_multi_gpu_dcgan/not_implemented.h"
#include "labs/10_multi_gpu_dcgan/rank_table.h"
#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using dcgan::kImageFloats;

// [DCGAN-SHPC]'s rank table (which rank runs on which node and GPU) and the run's inputs, on rank
// 0.
void print_header(std::ostream& out, lab10::RankState& s) {
  out << "dcgan_mpi: " << s.size << " rank(s), one GPU each"
      << (s.o.simulate_nodes > 0 ? " (nodes simulated)" : "") << "\n";
  s.rank_devices = lab10::print_rank_table(out, s.placement);
  lab10::print_run_inputs(out, s.weights_text, s.latents_text, s.num, s.worker->batch());
  out << "gather: "
      << (s.o.gather == "shared" ? "the ranks of rank 0's node write into its output (shared "
                                   "memory), other nodes' send"
                                 : "every rank but 0 sends its images (MPI_Igatherv)")
      << "\n"
      << lab10::earlier_labs_line() << "\n";
}

// Phase 3: the checked run into the poisoned output; rank 0 checks and writes the images. Returns
// the exit code of a failed rank, else 0, with `passed` agreed by every rank.
int checked_run(std::ostream& out, lab10::RankState& s, const lab10::ImageTypes& types,
                bool& passed) {
  const std::span<float> images =
      s.rank == 0 ? s.output->floats().first(static_cast<std::size_t>(s.num) * kImageFloats)
                  : std::span<float>{};
  std::fill(images.begin(), images.end(), std::nanf(""));
  if (const int code = lab10::phase(s, [&] { s.worker->poison(); }); code != 0) return code;
  cudalabs::CaughtError outcome;
  const double first_seconds = lab10::distributed_generate(
      MPI_COMM_WORLD, types, *s.generator, s.latents.values, s.num, *s.output, s.in_place, outcome);
  const int code =
      lab10::checkpoint(MPI_COMM_WORLD, outcome, cudalabs::program_name(), s.label).code;
  if (code != 0) return code;
  bool verdict = true;
  if (s.rank == 0) {
    bool unwritten = false;
    verdict = lab10::check_first_run(out, s.o.run, s.checked.run, s.weights, s.latents.values,
                                     images, s.num, s.worker.get(), s.size,
                                     "rank 0's GPU alone, share by share", unwritten);
    lab10::print_first_run(out, s.num, first_seconds);
    // Written now: the table's runs reuse the output window.
    dcgan::write_requested_images(out, s.o.run.output, s.o.run.raw, images, s.num, s.o.run.columns);
  }
  passed = lab10::agreed_by_rank0(verdict);
  return 0;
}

// Phase 4: [DCGAN-SHPC]'s Table 4 over the first g ranks, g in rank_counts, every cell checked
// again where it was timed; rank 0 prints and records it. Returns the exit code of a failed rank,
// else 0, with `passed` (every recheck) agreed by every rank.
int scaling_runs(std::ostream& out, lab10::RankState& s, const lab10::ImageTypes& types, int argc,
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
      lab10::run_record_context(argc, argv, s.rank_devices, s.checked.run, s.weights_text);
  context["ranks"] = std::to_string(s.size);
  context["gather"] = s.o.gather;
  // --gather collective is recorded apart (lab10_mpi-collective_<device>.json,
  // lab10/mpi-collective/...).
  lab10::report_scaling(out, s.o.run, "lab10_" + flavour,
                        cudalabs::device_slug(cudalabs::device_name(s.placement.device)), context,
                        medians, rechecks);
  return 0;
}

int run(int argc, char** argv, int thread_support) {
  lab10::RankState s;
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
  if (const int code = lab10::set_up_rank(s, CUDALABS_TRAINED_WEIGHTS); code != 0) return code;
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
