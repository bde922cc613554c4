/// @file lab_driver.h
/// @brief The driver kit: what every lab driver outside the GEMM template does, in the protocol's
/// order, so that a lab's main.cu holds only its problems, its checks and its tables.
///
///     LabDriver driver({"lab12", "reductions, scans and histograms"}, app);  // shared flags
///     add the lab's own flags to app;
///     if (!driver.parse(argc, argv, variant_names)) return kExitOk;       // --list, bad flags
///     driver.open_device();  size the problems (shrink_default_to_fit), require their memory;
///     driver.begin();        // the record's path, Google Benchmark, the header, the build report
///     check every chosen variant;  if (driver.verify_only()) return driver.exit_code(passed);
///     driver.add_timed({...}) for each passing variant and each reference;
///     medians = driver.time_and_recheck();  print tables (driver.check_cell);
///     return driver.exit_code(passed);
#pragma once

#include "common/benchmark_support.h"
#include "common/build_report.h"
#include "common/cli.h"
#include "common/device_info.h"
#include "common/driver_flags.h"
#include "common/run_protocol.h"
#include "common/variant_choice.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace cudalabs {

/// How a lab names itself.
struct LabIdentity {
  std::string id;     ///< "lab12": header, benchmark names, record file
  std::string title;  ///< "reductions, scans and histograms": the header's first line
};

/// One run of a lab driver: its shared flags, seed, device, timed runs and rechecks.
class LabDriver {
 public:
  /// Registers the shared flags (`flags.lab_id` is set from `lab.id`) on `app`, which the lab
  /// gives its own flags too before parse.
  LabDriver(LabIdentity lab, CLI::App& app, DriverFlags flags = {});

  /// Parses the command line (parse_flags_with_benchmark). False when --list printed
  /// `variants` (the program exits 0). Throws FlagError or std::invalid_argument for a bad flag or
  /// an unknown --variant, before the device is touched.
  bool parse(int argc, char* argv[], std::span<const VariantName> variants = {});

  /// The shared flags' values.
  const DriverOptions& options() const { return options_; }
  /// The timing flags' values.
  const TimingOptions& timing() const { return options_.timing; }
  /// True with --verify-only.
  bool verify_only() const { return options_.verify_only; }
  /// True when --variant names `name` or is not given.
  bool chosen(std::string_view name) const { return is_chosen(options_.variants, name); }
  /// True when the number flag (DriverFlags::number_flag) names `number` or is not given.
  bool chosen_number(int number) const;
  /// The run's seed (--seed, CUDALABS_SEED or fresh), printed in the header.
  std::uint64_t seed() const { return seed_; }
  /// Takes `seed` as the run's seed: a lab whose seed comes from its own flags (the DCGAN's input
  /// flags, with seed_flag off) hands it over after parse.
  void use_seed(std::uint64_t seed) { seed_ = seed; }
  /// The seed of one check or input set of the run: derive_seed(seed(), what).
  std::uint64_t seed_for(std::string_view what) const;
  /// The lab as it names itself.
  const LabIdentity& lab() const { return lab_; }
  /// Where the driver writes: stdout, or stderr when Google Benchmark writes JSON there.
  std::ostream& out() const;

  /// Requires a GPU (NoGpuError otherwise) and returns it; before sizing the problems.
  const DeviceInfo& open_device();
  /// The device open_device found.
  const DeviceInfo& device() const { return device_; }

  /// The default `size` of `flag` halved until `bytes(size)` fits this GPU's free memory, with one
  /// line saying so (shrink_default_to_fit), unless one of `given` was on the command line: sizes
  /// given by flags are kept, and refused by require_device_memory when they do not fit.
  void shrink_default(std::initializer_list<const char*> given, const std::string& flag, int& size,
                      long long smallest, const std::function<std::size_t(long long)>& bytes,
                      const std::string& besides = "");

  /// Adds the record's path (--results-dir), initializes Google Benchmark, prints the header (the
  /// lab, the device with `with_clock` its maximum SM clock, the seed) and the build report
  /// (print_build_report with `lab_kernel`, `features` and `feature_kernels`).
  void begin(bool with_clock = false, const void* lab_kernel = nullptr,
             std::span<const BuildFeature> features = {},
             std::span<const void* const> feature_kernels = {});

  /// begin() with the lab's own header: `header` prints its lines on out() (the DCGAN's weights,
  /// latents and the earlier labs it runs), then the build report follows.
  void begin(const std::function<void(std::ostream&)>& header);

  /// Adds a timed run (TimedSession::add).
  void add_timed(TimedRun run) { session_.add(std::move(run)); }
  /// Adds a reference timed beside the lab's variants (cuBLAS, CUB, a copy): not rechecked.
  void add_reference(std::string name, double flops, double bytes,
                     std::function<void(cudaStream_t)> launch) {
    session_.add({std::move(name), std::move(launch), flops, bytes, {}, {}});
  }

  /// Adds the record's context, times every run (one progress line each), rechecks every variant
  /// in its timed buffers and adds the rechecks to the record. Returns the medians by name.
  std::map<std::string, BenchmarkMedian> time_and_recheck();
  /// time_and_recheck's first half, for a lab that times more in the same buffers (lab 09's
  /// per-layer events) before they are checked again: the record's context and every run timed.
  std::map<std::string, BenchmarkMedian> time();
  /// time_and_recheck's second half: every variant rechecked in its timed buffers (one line each),
  /// the rechecks added to the record.
  void recheck();

  /// A table's check cell for the variant timed as `benchmark` (check_cell).
  std::string check_cell(CheckOutcome checked, const std::string& benchmark,
                         const std::string& skipped = "") const;
  /// The same for a verdict given as text.
  std::string check_cell(const std::string& checked, const std::string& benchmark) const;

  /// kExitOk when every check before timing passed (`checks_passed`) and every recheck after it,
  /// else kExitFailed.
  int exit_code(bool checks_passed) const;

  /// The timed runs and their rechecks.
  TimedSession& session() { return session_; }

 private:
  LabIdentity lab_;
  CLI::App* app_;
  DriverFlags flags_;
  DriverOptions options_;
  int argc_ = 0;
  std::vector<char*> argv_;  // the command line, for the record
  std::vector<std::string> benchmark_args_;
  std::uint64_t seed_ = 0;
  void start_record();  // the record's path and Google Benchmark
  DeviceInfo device_{};
  TimedSession session_{TimingOptions{}};
};

}  // namespace cudalabs
