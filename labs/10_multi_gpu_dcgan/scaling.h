/// @file labs/10_multi_gpu_dcgan/scaling.h
/// @brief The scaling experiment of [DCGAN-SHPC]'s Table 4, shared by the threaded driver and the
/// MPI program: which runs, their table, and their record.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lab10 {

/// One cell of the table: num images end to end on `gpus` GPUs, median wall-clock seconds.
struct ScalingPoint {
  int num = 0;           ///< num_to_gen
  int gpus = 0;          ///< GPUs (threads or ranks) that shared it
  double seconds = 0.0;  ///< median end-to-end wall-clock seconds
  int repetitions = 0;   ///< timed runs the median is taken over
};

/// Parses a comma-separated list of integers in [min, max] given to `flag`; throws FlagError
/// naming the flag and the offending item.
std::vector<int> parse_int_list(const std::string& flag, const std::string& text, long long min,
                                long long max);

/// [DCGAN-SHPC]'s Table 4 with rates: one row per num, per GPU count the seconds, images/s and the
/// efficiency against one GPU (images/s over GPUs x one GPU's images/s; "-" without a one-GPU run).
std::string scaling_table(const std::vector<ScalingPoint>& points);

/// Writes the points as Google-Benchmark-shaped JSON: benchmarks `lab10/FLAVOUR/nNUMxGPUSg_median`
/// with real_time in ms and the counter images_per_s; `context` becomes the context object (values
/// are strings).
void write_scaling_json(const std::string& path, const std::string& flavour,
                        const std::map<std::string, std::string>& context,
                        const std::vector<ScalingPoint>& points);

/// The context every record carries: date, `git_commit`, command line, and what `devices`
/// (ordinals) are: name, driver and runtime versions.
std::map<std::string, std::string> record_context(int argc, char** argv,
                                                  const std::vector<int>& devices,
                                                  const std::string& git_commit);

}  // namespace lab10
