#include "labs/10_multi_gpu_dcgan/mpi_rank.h"

#include "common/cli.h"
#include "labs/10_multi_gpu_dcgan/checkpoint.h"
#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include <mpi.h>
#include <omp.h>

#include <algorithm>

namespace lab10 {

namespace {

namespace dcgan = cudalabs::dcgan;

// Phase 1: placement, weights, and a GPU for this rank.
void place_rank(RankState& s, const std::string& trained_weights) {
  s.placement = place(s.o.simulate_nodes, s.checked.devices);
  s.label = "rank " + std::to_string(s.rank) + " (node " + std::to_string(s.placement.node) +
            ", GPU " + std::to_string(s.placement.local_rank) + ")";
  s.weights = dcgan::load_weights(s.o.run.inputs.weights, s.o.run.inputs.weights_seed,
                                  trained_weights, s.weights_text);
  cudalabs::require_gpu();
  s.backend = lab09::precision_backend(s.checked.run.precision);
  require_device(s.placement, s.rank, s.o.simulate_nodes, !s.checked.devices.empty());
}

// Phase 2 (rank 0): the latent vectors, and the largest run of the table.
void load_latents(RankState& s) {
  if (s.rank != 0) return;
  s.latents = dcgan::load_latents(s.o.run.inputs.input, s.o.run.inputs.num, s.checked.run.seed,
                                  s.latents_text);
  s.num = s.latents.count;
  s.largest_num = largest_run(s.num, s.checked.run.scaling_nums);
}

void make_worker(RankState& s) {
  const int copy_threads = std::max(1, omp_get_max_threads() / s.placement.ranks_on_node);
  s.worker = std::make_unique<GpuWorker>(
      s.placement.device, s.weights, run_batch(s.o.run, s.largest_num), copy_threads, s.backend);
  s.generator = std::make_unique<WorkerGenerator>(*s.worker);
}

// Rank 0's output (one window for the whole program: its pages are mapped once, not per run).
int make_output(RankState& s) {
  s.in_place = s.rank == 0 || (s.placement.node == 0 && s.o.gather == "shared");
  MPI_Comm node0 = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, s.placement.node == 0 ? 0 : MPI_UNDEFINED, s.rank, &node0);
  const int code = phase(s, [&] {
    s.output = std::make_unique<NodeOutput>(node0, static_cast<std::size_t>(s.largest_num));
  });
  if (node0 != MPI_COMM_NULL) MPI_Comm_free(&node0);
  return code;
}

}  // namespace

int phase(RankState& s, const std::function<void()>& body) {
  return checkpoint(MPI_COMM_WORLD, cudalabs::catch_error(body), cudalabs::program_name(), s.label)
      .code;
}

int set_up_rank(RankState& s, const std::string& trained_weights) {
  if (const int code = phase(s, [&] { place_rank(s, trained_weights); }); code != 0) return code;
  if (const int code = phase(s, [&] { load_latents(s); }); code != 0) return code;
  MPI_Bcast(&s.num, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&s.largest_num, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (const int code = phase(s, [&] { make_worker(s); }); code != 0) return code;
  return make_output(s);
}

}  // namespace lab10
