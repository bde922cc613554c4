#include "labs/10_multi_gpu_dcgan/mpi_flags.h"

#include "common/cli.h"
#include "labs/09_dcgan/precision_backend.h"
#include "labs/10_multi_gpu_dcgan/scaling.h"

namespace lab10 {

namespace {

void register_flags(CLI::App& app, MpiFlags& o) {
  add_run_flags(app, o.run, "lab10_mpi");
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
  app.add_option("--devices", o.devices,
                 "The CUDA device of each local rank (with --simulate-nodes: of each rank), "
                 "instead of local rank l on GPU l; a device may repeat: '0,0' runs two ranks on "
                 "GPU 0")
      ->type_name("GPU,...");
}

}  // namespace

CheckedMpiFlags parse_mpi_flags(int argc, char** argv, int ranks, MpiFlags& flags) {
  CLI::App app{
      "Lab 10: the DCGAN generator with one MPI rank per GPU. Rank 0 scatters the latent "
      "vectors, gathers the images, checks them and writes them; a scaling table times 1, 2, 4, "
      "... ranks."};
  register_flags(app, flags);
  cudalabs::parse_flags(app, argc, argv);
  CheckedMpiFlags checked;
  checked.run = check_run_flags(app, flags.run);
  // The precisions of the program's backend (each program links its own: lab09::PrecisionBackend).
  lab09::check_precision_flag(checked.run.precision);
  if (flags.gather != "shared" && flags.gather != "collective") {
    throw cudalabs::FlagError("--gather: '" + flags.gather + "' (expected shared or collective)");
  }
  if (!flags.scaling_ranks.empty()) {
    checked.rank_counts = parse_int_list("--scaling-ranks", flags.scaling_ranks, 1, ranks);
  } else {
    for (int g = 1; g < ranks; g *= 2) checked.rank_counts.push_back(g);
    checked.rank_counts.push_back(ranks);
  }
  if (flags.simulate_nodes > 0 && ranks % flags.simulate_nodes != 0) {
    throw cudalabs::FlagError("--simulate-nodes: " + std::to_string(ranks) +
                              " ranks do not split into " + std::to_string(flags.simulate_nodes) +
                              " equal nodes");
  }
  if (!flags.devices.empty()) checked.devices = parse_int_list("--devices", flags.devices, 0, 1023);
  return checked;
}

}  // namespace lab10
