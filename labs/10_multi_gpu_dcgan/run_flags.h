/// @file labs/10_multi_gpu_dcgan/run_flags.h
/// @brief What lab 10's two programs (the threaded driver and the MPI program) share around the
/// run: their common flags, the checks of a finished run, and where the scaling record goes.
#pragma once

#include "common/compute_precision.h"
#include "common/dcgan_inputs.h"
#include "labs/10_multi_gpu_dcgan/scaling.h"

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace lab10 {

/// The flags both programs take.
struct RunFlags {
  cudalabs::dcgan::InputFlags inputs;        ///< --weights, --weights-seed, --input, --num, --seed
  int batch = 0;                             ///< --batch; 0: min(1024, the largest run)
  std::string output;                        ///< --output: PNG grid
  std::string raw;                           ///< --raw: raw floats
  int columns = 8;                           ///< --columns of the PNG grid
  int check_images = 4;                      ///< --check-images against the CPU reference
  bool verify_only = false;                  ///< --verify-only: no scaling table
  std::string scaling = "10,100,1000,5248";  ///< --scaling: num_to_gen values of the table
  int repetitions = 5;                       ///< --repetitions per table cell
  std::string results_dir;                   ///< --results-dir for the record
  std::string results_tag;                   ///< --results-tag in the record's name
  std::string precision = "fp32";            ///< --precision: fp32, or tf32/bf16 (lab 11's layers)
};

/// Registers the RunFlags; `record` names the JSON (lab10_threads or lab10_mpi) in --results-dir's
/// help.
void add_run_flags(CLI::App& app, RunFlags& flags, const std::string& record);

/// What check_run_flags derives from the RunFlags.
struct CheckedRunFlags {
  std::uint64_t seed = 0;         ///< seed of the random latent vectors
  std::vector<int> scaling_nums;  ///< num_to_gen values of the table (none with --verify-only)
  cudalabs::ComputePrecision precision = cudalabs::ComputePrecision::kFp32;  ///< --precision
};

/// After parsing: checks the input flags and --scaling (FlagError naming the flag) and returns what
/// they give.
CheckedRunFlags check_run_flags(const CLI::App& app, const RunFlags& flags);

/// The images a run must hold: the output, one GPU's output to compare with, and the largest table
/// run (std::invalid_argument naming --num when that is more than host memory allows).
void require_run_memory(int num, int largest_num);

/// The checks of a finished run, printed to `out`: `check_images` sampled images against the CPU
/// reference generator, then, when `one_gpu` is given, the whole output against what it generates
/// alone (bit for bit; `one_gpu_label` names it). Returns whether everything passed; `unwritten`
/// tells that no image value was written (a TODO not implemented yet). The sampled images are held
/// to `precision`'s tolerance (dcgan::image_tolerance); the one-GPU comparison stays bit for bit.
bool check_run(std::ostream& out, const cudalabs::dcgan::Weights& weights,
               std::span<const float> latents, std::span<const float> images, int num,
               int check_images, const std::function<void(std::span<float>)>& one_gpu,
               const std::string& one_gpu_label, bool& unwritten,
               cudalabs::ComputePrecision precision = cudalabs::ComputePrecision::kFp32);

/// Prints the table and, with --results-dir, writes it as `record`_<tag>_<device>.json there.
void report_scaling(std::ostream& out, const RunFlags& flags, const std::string& record,
                    const std::string& flavour, const std::string& device_slug,
                    const std::map<std::string, std::string>& context,
                    const std::vector<ScalingPoint>& points);

}  // namespace lab10
