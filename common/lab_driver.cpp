#include "common/lab_driver.h"

#include "common/cli.h"
#include "common/random_fill.h"
#include "common/shrink_to_fit.h"

#include <algorithm>
#include <iostream>

namespace cudalabs {

LabDriver::LabDriver(LabIdentity lab, CLI::App& app, DriverFlags flags)
    : lab_(std::move(lab)), app_(&app), flags_(std::move(flags)) {
  flags_.lab_id = lab_.id;
  add_driver_flags(app, options_, flags_);
}

bool LabDriver::parse(int argc, char* argv[], std::span<const VariantName> variants) {
  argc_ = argc;
  argv_.assign(argv, argv + argc);
  benchmark_args_ = parse_flags_with_benchmark(*app_, argc, argv);
  if (options_.list) {
    print_variant_list(std::cout, variants);
    return false;
  }
  require_known_variants(options_.variants, variants);
  seed_ = choose_seed(options_.seed_text);
  session_ = TimedSession(options_.timing);
  return true;
}

bool LabDriver::chosen_number(int number) const {
  const std::vector<int>& chosen = options_.numbers;
  return chosen.empty() || std::find(chosen.begin(), chosen.end(), number) != chosen.end();
}

std::uint64_t LabDriver::seed_for(std::string_view what) const {
  return derive_seed(seed_, what);
}

std::ostream& LabDriver::out() const {
  return benchmark_stdout_is_machine_readable(benchmark_args_) ? std::cerr : std::cout;
}

const DeviceInfo& LabDriver::open_device() {
  require_gpu();
  device_ = current_device_info();
  return device_;
}

void LabDriver::shrink_default(std::initializer_list<const char*> given, const std::string& flag,
                               int& size, long long smallest,
                               const std::function<std::size_t(long long)>& bytes,
                               const std::string& besides) {
  for (const char* name : given)
    if (app_->count(name) > 0) return;
  size = static_cast<int>(
      shrink_default_to_fit(out(), flag, size, smallest, device_memory(), bytes, besides));
}

void LabDriver::start_record() {
  for (std::string& arg :
       record_output_args(options_.results_dir, lab_.id, options_.results_tag, device_.slug()))
    benchmark_args_.push_back(std::move(arg));
  initialize_benchmark(benchmark_args_);
}

void LabDriver::begin(const std::function<void(std::ostream&)>& header) {
  start_record();
  header(out());
  print_build_report(out(), nullptr);
}

void LabDriver::begin(bool with_clock, const void* lab_kernel,
                      std::span<const BuildFeature> features,
                      std::span<const void* const> feature_kernels) {
  start_record();
  std::ostream& o = out();
  o << lab_.id << ": " << lab_.title << "\n"
    << "device: " << device_.name << " (sm_" << device_.major << device_.minor << ", "
    << device_.sm_count << " SMs, ";
  if (with_clock) o << "max SM clock " << device_.sm_clock_khz / 1000 << " MHz, ";
  o << "driver " << DeviceInfo::version_text(device_.driver_version) << "), seed=" << seed_ << "\n";
  print_build_report(o, lab_kernel, features, feature_kernels);
}

std::map<std::string, BenchmarkMedian> LabDriver::time_and_recheck() {
  std::map<std::string, BenchmarkMedian> medians = time();
  recheck();
  return medians;
}

std::map<std::string, BenchmarkMedian> LabDriver::time() {
  add_benchmark_context(device_, argc_, argv_.data(), seed_);
  session_.register_benchmarks();
  out() << "timing: " << options_.timing.repetitions << " repetitions of at least "
        << options_.timing.min_time_s << " s each, CUDA-event times, medians\n";
  return run_benchmarks(benchmark_args_, out());
}

void LabDriver::recheck() {
  const std::map<std::string, Recheck>& rechecks = session_.recheck_all(out());
  if (const std::string record = record_file_of(benchmark_args_); !record.empty())
    add_rechecks_to_record(record, rechecks);
}

std::string LabDriver::check_cell(CheckOutcome checked, const std::string& benchmark,
                                  const std::string& skipped) const {
  return cudalabs::check_cell(checked, session_.recheck_of(benchmark), skipped);
}

std::string LabDriver::check_cell(const std::string& checked, const std::string& benchmark) const {
  return cudalabs::check_cell(checked, session_.recheck_of(benchmark));
}

int LabDriver::exit_code(bool checks_passed) const {
  return checks_passed && session_.rechecks_passed() ? kExitOk : kExitFailed;
}

}  // namespace cudalabs
