/// @file labs/10_multi_gpu_dcgan/scaling.h
/// @brief The scaling experiment of [DCGAN-SHPC]'s Table 4, shared by the threaded driver and the
/// MPI program: which runs, their table, and their record.
#pragma once

#include "common/compute_precision.h"
#include "common/dcgan_model.h"
#include "common/host_timing.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace lab10 {

/// What a scaling table runs and checks (either program: threads or ranks are its GPUs).
struct ScalingTable {
  const cudalabs::dcgan::Weights& weights;  ///< every GPU's weights, for the CPU reference
  std::uint64_t seed = 0;                   ///< the run's seed: the timed and the fresh latents
  cudalabs::ComputePrecision precision = cudalabs::ComputePrecision::kFp32;  ///< its tolerance
  int check_images = 4;         ///< images of each recheck against the CPU reference
  std::vector<int> nums;        ///< num_to_gen of each row
  std::vector<int> gpu_counts;  ///< the first G workers (or ranks) of each column
};

/// The `count` latent vectors every cell is timed on (the first num of them), drawn from
/// derive_seed(seed, "scaling").
std::vector<float> timed_latents(const ScalingTable& table, int count);

/// Before the recheck of cell `num` x `gpus`, in the buffers it was timed in: fresh latent vectors
/// (derive_seed(seed, "recheck nNUMxGPUS")) drawn into the first `num` of `latents`, and the first
/// `num` images of `images` poisoned with NaN (an empty `images`: none, as on a rank that writes
/// elsewhere). Returns the fresh latents, a view of `latents`.
std::span<const float> refill_for_recheck(const ScalingTable& table, int num, int gpus,
                                          std::span<float> latents, std::span<float> images);

/// One cell of the table as the kit times it (host_timing.h): `num` images end to end on `gpus`
/// GPUs (threads or ranks), named `lab10/FLAVOUR/nNUMxGPUSg`, with the fields num and gpus and the
/// counter images_per_s. `run` makes one run and returns its wall-clock seconds.
cudalabs::HostTimedRun scaling_run(const std::string& flavour, int num, int gpus,
                                   std::function<double()> run,
                                   std::function<cudalabs::Recheck()> recheck);

/// Parses a comma-separated list of integers in [min, max] given to `flag`; throws FlagError
/// naming the flag and the offending item.
std::vector<int> parse_int_list(const std::string& flag, const std::string& text, long long min,
                                long long max);

/// [DCGAN-SHPC]'s Table 4 with rates: one row per num, per GPU count the seconds, images/s and the
/// efficiency against one GPU (images/s over GPUs x one GPU's images/s; "-" without a one-GPU run).
/// `cells` are scaling_run's medians.
std::string scaling_table(const std::vector<cudalabs::HostMedian>& cells);

/// The context every record carries: date, `git_commit`, command line, and what `devices`
/// (ordinals) are: name, driver and runtime versions.
std::map<std::string, std::string> record_context(int argc, char** argv,
                                                  const std::vector<int>& devices,
                                                  const std::string& git_commit);

}  // namespace lab10
