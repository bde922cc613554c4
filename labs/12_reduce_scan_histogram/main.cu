// Lab 12 driver: checks every rung of the three ladders (sum, inclusive scan, histogram) against
// the CPU references at the timed size and at an odd, misaligned one, then times them next to CUB,
// Thrust and cudaMemcpy in the same process, and prints one table per ladder: time, bandwidth, the
// share of CUB's rate (and of the copy's, for the sum), the sum's error and its bound.
#include "checks.h"
#include "common/benchmark_support.h"
#include "common/build_report.h"
#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/random_fill.h"
#include "common/text_table.h"
#include "lab.h"
#include "library_reference.h"
#include "reference.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cudalabs::BenchmarkMedian;
using cudalabs::CheckOutcome;
using cudalabs::DeviceBuffer;
using cudalabs::TextTable;

// The odd size every rung is also checked at (not a multiple of 4, of a warp or of a tile), with
// its arrays moved off 16-byte alignment.
constexpr std::size_t kOddCount = 1000003;

struct Options {
  int count = 1 << 28;
  int offset = 0;
  std::vector<std::string> variants;
  cudalabs::TimingOptions timing;
  std::string seed_text;
  bool verify_only = false;
  bool list = false;
  std::string results_dir;
  std::string results_tag;
};

void register_flags(CLI::App& app, Options& options) {
  cudalabs::add_integer_flag(app, "--n,--count", options.count, 1, 0x7FFFFFFF,
                             "Elements of the sum and the scan, bytes of the histogram");
  cudalabs::add_integer_flag(app, "--offset", options.offset, 0, 15,
                             "Elements the timed arrays start past a 16-byte boundary");
  app.add_option("--variant", options.variants, "Variant to run (repeatable; default: all)")
      ->type_name("NAME");
  cudalabs::add_integer_flag(app, "--repetitions", options.timing.repetitions, 1, 1000,
                             "Timed repetitions; tables show their median");
  cudalabs::add_number_flag(app, "--min-time", options.timing.min_time_s, 0.0, 60.0,
                            "Minimum timed seconds per repetition");
  cudalabs::add_integer_flag(app, "--warmups", options.timing.warmups, 0, 1000,
                             "Untimed launches before each repetition");
  app.add_option("--seed", options.seed_text,
                 "Seed of the random inputs (default: CUDALABS_SEED or fresh)")
      ->type_name("SEED");
  app.add_flag("--verify-only", options.verify_only, "Check every variant, time nothing");
  app.add_flag("--list", options.list, "List the variants and exit");
  app.add_option("--results-dir", options.results_dir,
                 "Write the Google Benchmark JSON to DIR/lab12_<device>.json")
      ->type_name("DIR");
  app.add_option("--results-tag", options.results_tag,
                 "Name the JSON DIR/lab12_<TAG>_<device>.json instead")
      ->type_name("TAG");
}

// Every variant of the three ladders, for --list and --variant.
std::vector<std::pair<std::string, std::string>> all_variants() {
  std::vector<std::pair<std::string, std::string>> names;
  for (const lab12::SumVariant& v : lab12::sum_variants()) names.emplace_back(v.name, v.summary);
  for (const lab12::ScanVariant& v : lab12::scan_variants()) names.emplace_back(v.name, v.summary);
  for (const lab12::HistogramVariant& v : lab12::histogram_variants())
    names.emplace_back(v.name, v.summary);
  return names;
}

void require_known(const std::vector<std::string>& chosen) {
  const auto known = all_variants();
  for (const std::string& name : chosen) {
    if (std::none_of(known.begin(), known.end(), [&](const auto& k) { return k.first == name; })) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k.first;
      throw std::invalid_argument("--variant: unknown variant '" + name + "' (known: " + list +
                                  ")");
    }
  }
}

bool chosen(const Options& options, const char* name) {
  return options.variants.empty() || std::find(options.variants.begin(), options.variants.end(),
                                               name) != options.variants.end();
}

template <class Variant>
bool any_chosen(const Options& options, std::span<const Variant> variants) {
  return std::any_of(variants.begin(), variants.end(),
                     [&](const Variant& v) { return chosen(options, v.name); });
}

std::string scientific(double value) {
  std::ostringstream text;
  text.precision(2);
  text << std::scientific << value;
  return text.str();
}

// Two checks of one variant give one verdict: both unwritten is "not implemented yet".
CheckOutcome combine(CheckOutcome a, CheckOutcome b) {
  if (a == CheckOutcome::kNotImplemented && b == CheckOutcome::kNotImplemented) return a;
  if (a == CheckOutcome::kPassed && b == CheckOutcome::kPassed) return a;
  return CheckOutcome::kFailed;
}

// One row of a table: the variant, its verdict, and (the sum) the error at the timed size.
struct Row {
  std::string name;
  CheckOutcome outcome = CheckOutcome::kFailed;
  double error = std::nan("");
  double bound = std::nan("");
};

// The problems' names in the benchmark names: sum_n268435456 (_off1 when offset).
struct Problems {
  std::string sum, scan, uniform, skewed;
};

Problems problems_for(const Options& options) {
  const std::string n = "n" + std::to_string(options.count) +
                        (options.offset ? "_off" + std::to_string(options.offset) : "");
  return {"sum_" + n, "scan_" + n, "hist_uniform_" + n, "hist_skewed_" + n};
}

template <class Variant, class Verifier>
void check_ladder(std::ostream& out, std::span<const Variant> variants, const Options& options,
                  std::vector<Verifier*> verifiers, std::vector<Row>& rows, bool& all_passed) {
  for (const Variant& variant : variants) {
    if (!chosen(options, variant.name)) continue;
    Row row{variant.name, CheckOutcome::kNotImplemented};
    bool first = true;
    for (Verifier* verifier : verifiers) {
      const lab12::CheckReport report = verifier->check(variant);
      out << "  " << report.message << "\n";
      row.outcome = first ? report.outcome : combine(row.outcome, report.outcome);
      if (first) {
        row.error = report.error;
        row.bound = report.bound;
      }
      first = false;
    }
    all_passed = all_passed && row.outcome == CheckOutcome::kPassed;
    rows.push_back(row);
  }
}

struct Checked {
  std::vector<Row> sum, scan, histogram;
  bool all_passed = true;
};

Checked check_all(std::ostream& out, const Options& options, std::uint64_t seed) {
  const std::size_t count = static_cast<std::size_t>(options.count);
  const std::size_t offset = static_cast<std::size_t>(options.offset);
  Checked checked;
  if (any_chosen(options, lab12::sum_variants())) {
    out << "check: the sum (an exact input bit for bit, a random one within its bound)\n";
    lab12::SumVerifier timed(count, offset, cudalabs::derive_seed(seed, "sum"));
    lab12::SumVerifier odd(kOddCount, 1, cudalabs::derive_seed(seed, "sum odd"));
    check_ladder(out, lab12::sum_variants(), options, std::vector{&timed, &odd}, checked.sum,
                 checked.all_passed);
  }
  if (any_chosen(options, lab12::scan_variants())) {
    out << "check: the inclusive scan (every value bit for bit)\n";
    lab12::ScanVerifier timed(count, offset, offset, cudalabs::derive_seed(seed, "scan"));
    lab12::ScanVerifier odd(kOddCount, 1, 3, cudalabs::derive_seed(seed, "scan odd"));
    check_ladder(out, lab12::scan_variants(), options, std::vector{&timed, &odd}, checked.scan,
                 checked.all_passed);
  }
  if (any_chosen(options, lab12::histogram_variants())) {
    out << "check: the histogram (every bin exact)\n";
    using lab12::ByteDistribution;
    lab12::HistogramVerifier uniform(count, offset, ByteDistribution::kUniform,
                                     cudalabs::derive_seed(seed, "hist"));
    lab12::HistogramVerifier skewed(count, offset, ByteDistribution::kSkewed,
                                    cudalabs::derive_seed(seed, "hist"));
    lab12::HistogramVerifier odd(kOddCount, 3, ByteDistribution::kUniform,
                                 cudalabs::derive_seed(seed, "hist odd"));
    check_ladder(out, lab12::histogram_variants(), options, std::vector{&uniform, &skewed, &odd},
                 checked.histogram, checked.all_passed);
  }
  return checked;
}

// Device memory that lives until the benchmarks have run.
struct TimingBuffers {
  std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> blocks;
  unsigned char* allocate(std::size_t bytes) {
    blocks.push_back(
        std::make_unique<DeviceBuffer<unsigned char>>(std::max<std::size_t>(bytes, 16)));
    return blocks.back()->data();
  }
};

void register_timed(const std::string& name, const Options& options, double bytes,
                    std::function<void(cudaStream_t)> launch) {
  cudalabs::register_timed_benchmark(
      name,
      [launch, bytes, warmups = options.timing.warmups](benchmark::State& state) {
        cudalabs::time_iterations(
            state, [&](cudaStream_t stream, int) { launch(stream); }, 0.0, bytes, warmups);
      },
      options.timing);
}

const Row* find_row(const std::vector<Row>& rows, const char* name) {
  for (const Row& row : rows)
    if (row.name == name) return &row;
  return nullptr;
}

void register_all(const Options& options, const Problems& problems, const Checked& checked,
                  std::uint64_t seed, TimingBuffers& buffers) {
  const std::size_t count = static_cast<std::size_t>(options.count);
  const std::size_t offset = static_cast<std::size_t>(options.offset);
  namespace library = lab12_library;

  // The sum, with the copy of its input as the bandwidth yardstick (bytes read and written).
  if (!checked.sum.empty()) {
    std::vector<float> host(count);
    cudalabs::fill_uniform(host, cudalabs::derive_seed(seed, "time sum"));
    float* input =
        reinterpret_cast<float*>(buffers.allocate((count + offset) * sizeof(float))) + offset;
    CUDA_CHECK(cudaMemcpy(input, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    float* copy = reinterpret_cast<float*>(buffers.allocate(count * sizeof(float)));
    float* sum = reinterpret_cast<float*>(buffers.allocate(sizeof(float)));
    const double bytes = static_cast<double>(count) * sizeof(float);
    register_timed("reference/cudaMemcpy/" + problems.sum, options, 2 * bytes,
                   [=](cudaStream_t stream) {
                     CUDA_CHECK(cudaMemcpyAsync(copy, input, count * sizeof(float),
                                                cudaMemcpyDeviceToDevice, stream));
                   });
    const std::size_t cub_bytes = library::cub_sum_workspace(count);
    void* cub_workspace = buffers.allocate(cub_bytes);
    register_timed("reference/cub_sum/" + problems.sum, options, bytes, [=](cudaStream_t stream) {
      library::cub_sum(input, count, sum, cub_workspace, cub_bytes, stream);
    });
    register_timed("reference/thrust_sum/" + problems.sum, options, bytes,
                   [=](cudaStream_t stream) { (void)library::thrust_sum(input, count, stream); });
    for (const lab12::SumVariant& variant : lab12::sum_variants()) {
      const Row* row = find_row(checked.sum, variant.name);
      if (row == nullptr || row->outcome != CheckOutcome::kPassed) continue;
      const std::size_t workspace_bytes = variant.workspace_bytes(count);
      void* workspace = buffers.allocate(workspace_bytes);
      register_timed("lab12/" + std::string(variant.name) + "/" + problems.sum, options, bytes,
                     [=, &variant](cudaStream_t stream) {
                       variant.launch({input, count, sum, workspace, workspace_bytes}, stream);
                     });
    }
  }

  // The scan: bytes read and written once, what a one-pass scan must move.
  if (!checked.scan.empty()) {
    const std::vector<std::uint32_t> host =
        lab12::scan_inputs(count, cudalabs::derive_seed(seed, "time scan"));
    auto* input = reinterpret_cast<std::uint32_t*>(
                      buffers.allocate((count + offset) * sizeof(std::uint32_t))) +
                  offset;
    CUDA_CHECK(
        cudaMemcpy(input, host.data(), count * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    auto* output = reinterpret_cast<std::uint32_t*>(
                       buffers.allocate((count + offset) * sizeof(std::uint32_t))) +
                   offset;
    const double bytes = 2.0 * static_cast<double>(count) * sizeof(std::uint32_t);
    const std::size_t cub_bytes = library::cub_scan_workspace(count);
    void* cub_workspace = buffers.allocate(cub_bytes);
    register_timed("reference/cub_scan/" + problems.scan, options, bytes, [=](cudaStream_t stream) {
      library::cub_inclusive_scan(input, output, count, cub_workspace, cub_bytes, stream);
    });
    register_timed(
        "reference/thrust_scan/" + problems.scan, options, bytes,
        [=](cudaStream_t stream) { library::thrust_inclusive_scan(input, output, count, stream); });
    for (const lab12::ScanVariant& variant : lab12::scan_variants()) {
      const Row* row = find_row(checked.scan, variant.name);
      if (row == nullptr || row->outcome != CheckOutcome::kPassed) continue;
      const std::size_t workspace_bytes = variant.workspace_bytes(count);
      void* workspace = buffers.allocate(workspace_bytes);
      register_timed("lab12/" + std::string(variant.name) + "/" + problems.scan, options, bytes,
                     [=, &variant](cudaStream_t stream) {
                       variant.launch({input, output, count, workspace, workspace_bytes}, stream);
                     });
    }
  }

  // The histogram on uniform and on skewed bytes.
  if (!checked.histogram.empty()) {
    auto* bins = reinterpret_cast<std::uint32_t*>(buffers.allocate(lab12::kBins * 4));
    const std::size_t cub_bytes = library::cub_histogram_workspace(count);
    void* cub_workspace = buffers.allocate(cub_bytes);
    for (const auto& [distribution, problem] :
         {std::pair{lab12::ByteDistribution::kUniform, problems.uniform},
          std::pair{lab12::ByteDistribution::kSkewed, problems.skewed}}) {
      const std::vector<std::uint8_t> host = lab12::histogram_inputs(
          count, distribution, cudalabs::derive_seed(seed, "time " + problem));
      std::uint8_t* input = buffers.allocate(count + offset) + offset;
      CUDA_CHECK(cudaMemcpy(input, host.data(), count, cudaMemcpyHostToDevice));
      const double bytes = static_cast<double>(count);
      register_timed("reference/cub_histogram/" + problem, options, bytes,
                     [=](cudaStream_t stream) {
                       library::cub_histogram(input, count, bins, cub_workspace, cub_bytes, stream);
                     });
      for (const lab12::HistogramVariant& variant : lab12::histogram_variants()) {
        const Row* row = find_row(checked.histogram, variant.name);
        if (row == nullptr || row->outcome != CheckOutcome::kPassed) continue;
        register_timed("lab12/" + std::string(variant.name) + "/" + problem, options, bytes,
                       [=, &variant](cudaStream_t stream) {
                         variant.launch({input, count, bins}, stream);
                       });
      }
    }
  }
}

std::optional<BenchmarkMedian> median(const std::map<std::string, BenchmarkMedian>& medians,
                                      const std::string& name) {
  const auto it = medians.find(name);
  if (it == medians.end()) return std::nullopt;
  return it->second;
}

double rate(const std::optional<BenchmarkMedian>& m) {
  if (!m) return std::nan("");
  const auto c = m->counters.find("gbytes_per_s");
  return c == m->counters.end() ? std::nan("") : c->second;
}

std::string milliseconds(const std::optional<BenchmarkMedian>& m) {
  return TextTable::number(m ? m->real_time_ms : std::nan(""), 3);
}

// One ladder's table: the references first, then each variant against `reference` (CUB) and, for
// the sum, against the copy.
void print_table(std::ostream& out, const std::string& title, const std::vector<Row>& rows,
                 const std::vector<std::string>& references, const std::string& problem,
                 const std::map<std::string, BenchmarkMedian>& medians, bool with_errors) {
  const double cub = rate(median(medians, "reference/" + references.front() + "/" + problem));
  const double copy = rate(median(medians, "reference/cudaMemcpy/" + problem));
  std::vector<TextTable::Column> columns = {
      {"variant", false}, {"ms", true}, {"GB/s", true}, {"% of CUB", true}};
  if (with_errors) {
    columns.push_back({"% of copy", true});
    columns.push_back({"|error|", true});
    columns.push_back({"bound", true});
  }
  columns.push_back({"check", false});
  TextTable table(columns);
  auto add = [&](const std::string& name, const std::optional<BenchmarkMedian>& m,
                 const std::string& check, double error, double bound) {
    std::vector<std::string> cells = {name, milliseconds(m), TextTable::number(rate(m), 0),
                                      TextTable::number(100.0 * rate(m) / cub, 1)};
    if (with_errors) {
      // The copy's bandwidth counts its bytes read and written; a sum only reads.
      cells.push_back(TextTable::number(100.0 * rate(m) / copy, 1));
      cells.push_back(std::isnan(error) ? "-" : scientific(error));
      cells.push_back(std::isnan(bound) ? "-" : scientific(bound));
    }
    cells.push_back(check);
    table.add_row(cells);
  };
  for (const std::string& reference : references)
    add(reference, median(medians, "reference/" + reference + "/" + problem), "reference",
        std::nan(""), std::nan(""));
  for (const Row& row : rows) {
    add(row.name, median(medians, "lab12/" + row.name + "/" + problem),
        cudalabs::outcome_text(row.outcome), row.error, row.bound);
  }
  out << "\n" << title << "\n";
  table.print(out);
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{
      "Lab 12: reductions, scans and histograms. Checks every variant against the CPU references, "
      "then times them next to CUB, Thrust and cudaMemcpy."};
  register_flags(app, options);
  std::vector<std::string> benchmark_args = cudalabs::parse_flags_with_benchmark(app, argc, argv);
  if (options.list) {
    for (const auto& [name, summary] : all_variants()) std::cout << name << "\t" << summary << "\n";
    return cudalabs::kExitOk;
  }
  require_known(options.variants);
  const std::uint64_t seed = options.seed_text.empty()
                                 ? cudalabs::run_seed()
                                 : static_cast<std::uint64_t>(cudalabs::parse_integer_flag(
                                       "--seed", options.seed_text, 0, (1LL << 62)));
  std::ostream& out =
      cudalabs::benchmark_stdout_is_machine_readable(benchmark_args) ? std::cerr : std::cout;

  cudalabs::require_gpu();
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  // The checks hold two sum inputs; the timing an input, an output and CUB's scratch: about three
  // arrays of n floats at once.
  const auto bytes_for = [](long long count) {
    return 3 * (static_cast<std::size_t>(count) + 16) * sizeof(float) + (64 << 20);
  };
  if (app.count("--n") == 0) {  // the default shrinks to this GPU; a given --n is refused instead
    const cudalabs::DeviceMemory memory = cudalabs::device_memory();
    const long long fitting =
        cudalabs::halve_until_fits(options.count, 1 << 20, memory.free_bytes, bytes_for);
    if (fitting != options.count) {
      out << "size: the default --n " << options.count << " needs "
          << (bytes_for(options.count) >> 20) << " MiB, more than this GPU can spare ("
          << (memory.free_bytes >> 20) << " MiB free of " << (memory.total_bytes >> 20)
          << " MiB); running --n " << fitting << " (--n chooses)\n";
      options.count = static_cast<int>(fitting);
    }
  }
  cudalabs::require_device_memory(bytes_for(options.count), "--n " + std::to_string(options.count));
  if (!options.results_dir.empty()) {
    std::filesystem::create_directories(options.results_dir);
    const std::string tag = options.results_tag.empty() ? "" : options.results_tag + "_";
    benchmark_args.push_back("--benchmark_out=" + options.results_dir + "/lab12_" + tag +
                             device.slug() + ".json");
    benchmark_args.push_back("--benchmark_out_format=json");
  }
  cudalabs::initialize_benchmark(benchmark_args);
  out << "lab12: reductions, scans and histograms\n"
      << "device: " << device.name << " (sm_" << device.major << device.minor << ", "
      << device.sm_count << " SMs, driver "
      << cudalabs::DeviceInfo::version_text(device.driver_version) << "), seed=" << seed << "\n";
  cudalabs::print_build_report(out, nullptr);  // JIT-compiled from older PTX?

  const Checked checked = check_all(out, options, seed);
  const Problems problems = problems_for(options);
  if (options.verify_only) return checked.all_passed ? cudalabs::kExitOk : cudalabs::kExitFailed;

  cudalabs::add_benchmark_context(device, argc, argv, seed);
  TimingBuffers buffers;
  register_all(options, problems, checked, seed, buffers);
  out << "timing: " << options.timing.repetitions << " repetitions of at least "
      << options.timing.min_time_s << " s each, CUDA-event times, medians\n";
  const std::map<std::string, BenchmarkMedian> medians =
      cudalabs::run_benchmarks(benchmark_args, out);
  if (!checked.sum.empty()) {
    print_table(out, "sum of " + std::to_string(options.count) + " floats (" + problems.sum + ")",
                checked.sum, {"cub_sum", "thrust_sum", "cudaMemcpy"}, problems.sum, medians, true);
  }
  if (!checked.scan.empty()) {
    print_table(out,
                "inclusive scan of " + std::to_string(options.count) + " uint32 (" + problems.scan +
                    "; GB/s counts one read and one write)",
                checked.scan, {"cub_scan", "thrust_scan"}, problems.scan, medians, false);
  }
  if (!checked.histogram.empty()) {
    for (const std::string& problem : {problems.uniform, problems.skewed}) {
      print_table(out, "histogram of " + std::to_string(options.count) + " bytes (" + problem + ")",
                  checked.histogram, {"cub_histogram"}, problem, medians, false);
    }
  }
  return checked.all_passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
