/// @file labs/10_multi_gpu_dcgan/run_flags.h
/// @brief What lab 10's two programs (the threaded driver and the MPI program) share around the
/// run: their common flags, the checks of a finished run, and where the scaling record goes.
#pragma once

#include "common/compute_precision.h"
#include "common/dcgan_inputs.h"
#include "common/driver_flags.h"
#include "common/host_timing.h"
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

class GpuWorker;

/// The flags both programs take.
struct RunFlags {
  cudalabs::dcgan::InputFlags inputs;        ///< --weights, --weights-seed, --input, --num, --seed
  int batch = 0;                             ///< --batch; 0: min(1024, the largest run)
  std::string output;                        ///< --output: PNG grid
  std::string raw;                           ///< --raw: raw floats
  int columns = 8;                           ///< --columns of the PNG grid
  int check_images = 4;                      ///< --check-images against the CPU reference
  std::string scaling = "10,100,1000,5248";  ///< --scaling: num_to_gen values of the table
  std::string precision = "fp32";            ///< --precision: fp32, or tf32/bf16 (lab 11's layers)
  /// The kit's flags (driver_flags.h): --repetitions per table cell (default 5), --verify-only (no
  /// scaling table), --results-dir and --results-tag for the record.
  cudalabs::DriverOptions driver = with_repetitions(5);

  /// The kit's defaults, but `repetitions`.
  static cudalabs::DriverOptions with_repetitions(int repetitions) {
    cudalabs::DriverOptions options;
    options.timing.repetitions = repetitions;
    return options;
  }
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

/// The largest run of either program: `num` images, or the largest of the table's `scaling_nums`,
/// once require_run_memory has found room for them.
int largest_run(int num, const std::vector<int>& scaling_nums);

/// Images per generator run on each GPU: --batch, else min(1024, `largest_num`).
int run_batch(const RunFlags& flags, int largest_num);

/// What both programs generate, as they print it under their header: the weights, the latent
/// vectors, and `num` images in batches of up to `batch` per GPU.
void print_run_inputs(std::ostream& out, const std::string& weights_text,
                      const std::string& latents_text, int num, int batch);

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

/// One GPU's generator: (latents, count, images) -> count images, batch by batch.
using GenerateAlone = std::function<void(std::span<const float>, int, std::span<float>)>;

/// The one-GPU run check_run compares with: `alone` generates the run's `parts` shares
/// (gpu_share(num, parts, p)) one after another, each into its place: the batches the GPUs ran.
/// Bit for bit is then a fair demand; one call for all `num` images would batch them otherwise,
/// and a GEMM planned for another batch size may add in another order.
std::function<void(std::span<float>)> share_by_share(GenerateAlone alone,
                                                     std::span<const float> latents, int num,
                                                     int parts);

/// check_run of a program's first run, with --check-images and --precision: when the run was split
/// into `parts` > 1 shares, `alone` (its first GPU's worker) generates them share by share for the
/// bit for bit comparison (`alone_label` names it); nullptr skips it.
bool check_first_run(std::ostream& out, const RunFlags& flags, const CheckedRunFlags& checked,
                     const cudalabs::dcgan::Weights& weights, std::span<const float> latents,
                     std::span<const float> images, int num, GpuWorker* alone, int parts,
                     const std::string& alone_label, bool& unwritten);

/// "first run: N images in T ms (untimed warm-up)": the checked run's time, not the table's.
void print_first_run(std::ostream& out, int num, double seconds);

/// check_run as the recheck of a table cell, after timing: `run` has drawn fresh latents into the
/// timed input, poisoned the timed images and made one run on the cell's GPUs; the whole output is
/// compared with `one_gpu`'s always, a one-GPU cell too (its run again). One line.
cudalabs::Recheck recheck_run(const cudalabs::dcgan::Weights& weights,
                              std::span<const float> latents, std::span<const float> images,
                              int num, int check_images,
                              const std::function<void(std::span<float>)>& one_gpu,
                              cudalabs::ComputePrecision precision);

/// The scaling record's context in either program: record_context on `devices` (each GPU of the
/// run) and the commit this program was built from, with the seed, --precision and the weights.
std::map<std::string, std::string> run_record_context(int argc, char** argv,
                                                      const std::vector<int>& devices,
                                                      const CheckedRunFlags& checked,
                                                      const std::string& weights_text);

/// Prints the table, then "check: FAIL after timing: <cells>" when a recheck failed; with
/// --results-dir, writes the record (the kit's host_record) as `record`_<tag>_<device>.json there,
/// and to each of `also` (the grader's
/// --benchmark_out).
void report_scaling(std::ostream& out, const RunFlags& flags, const std::string& record,
                    const std::string& device_slug,
                    const std::map<std::string, std::string>& context,
                    const std::vector<cudalabs::HostMedian>& medians,
                    const std::map<std::string, cudalabs::Recheck>& rechecks,
                    const std::string& also = "");

}  // namespace lab10
