// Lab 12 driver (the protocol: common/lab_driver.h): checks every rung of the three ladders (sum,
// inclusive scan, histogram) against the CPU at the timed size and at an odd, misaligned one, times
// them next to CUB, Thrust and cudaMemcpy, checks them again in their timed buffers, and prints a
// table per ladder: time, bandwidth, % of CUB (and of the copy, for the sum), the sum's error
// bound.
#include "checks.h"
#include "common/cuda_check.h"
#include "common/device_arena.h"
#include "common/lab_driver.h"
#include "common/ladder.h"
#include "common/text_table.h"
#include "lab.h"
#include "library_reference.h"
#include "reference.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

using cudalabs::TextTable;
using Checked = std::vector<cudalabs::CheckedVariant<lab12::CheckReport>>;
namespace library = lab12_library;

// The odd size every rung is also checked at (not a multiple of 4, of a warp or of a tile), with
// its arrays moved off 16-byte alignment.
constexpr std::size_t kOddCount = 1000003;

struct Options {
  int count = 1 << 28;
  int offset = 0;
};

// The problems' names in the benchmark names: sum_n268435456 (_off1 when offset).
struct Problems {
  explicit Problems(const Options& options)
      : n("n" + std::to_string(options.count) +
          (options.offset ? "_off" + std::to_string(options.offset) : "")) {}
  std::string n, sum = "sum_" + n, scan = "scan_" + n, uniform = "hist_uniform_" + n,
                 skewed = "hist_skewed_" + n;
};

struct CheckedLadders {
  Checked sum, scan, histogram;
  bool all_passed = true;
};

CheckedLadders check_all(cudalabs::LabDriver& driver, const Options& options) {
  std::ostream& out = driver.out();
  const auto& chosen = driver.options().variants;
  const std::size_t count = options.count, offset = options.offset;
  const auto seed = [&](const char* what) { return driver.seed_for(what); };
  CheckedLadders checked;
  if (cudalabs::any_chosen(chosen, lab12::sum_variants())) {
    out << "check: the sum (an exact input bit for bit, a random one within its bound)\n";
    lab12::SumVerifier timed(count, offset, seed("sum")), odd(kOddCount, 1, seed("sum odd"));
    checked.sum = cudalabs::check_ladder(out, chosen, lab12::sum_variants(),
                                         std::vector{&timed, &odd}, checked.all_passed);
  }
  if (cudalabs::any_chosen(chosen, lab12::scan_variants())) {
    out << "check: the inclusive scan (every value bit for bit)\n";
    lab12::ScanVerifier timed(count, offset, offset, seed("scan"));
    lab12::ScanVerifier odd(kOddCount, 1, 3, seed("scan odd"));
    checked.scan = cudalabs::check_ladder(out, chosen, lab12::scan_variants(),
                                          std::vector{&timed, &odd}, checked.all_passed);
  }
  if (cudalabs::any_chosen(chosen, lab12::histogram_variants())) {
    out << "check: the histogram (every bin exact)\n";
    using lab12::ByteDistribution;
    lab12::HistogramVerifier uniform(count, offset, ByteDistribution::kUniform, seed("hist"));
    lab12::HistogramVerifier skewed(count, offset, ByteDistribution::kSkewed, seed("hist"));
    lab12::HistogramVerifier odd(kOddCount, 3, ByteDistribution::kUniform, seed("hist odd"));
    checked.histogram =
        cudalabs::check_ladder(out, chosen, lab12::histogram_variants(),
                               std::vector{&uniform, &skewed, &odd}, checked.all_passed);
  }
  return checked;
}

// Every passing variant of every ladder and the libraries beside it, in their timed buffers.
void add_timed_runs(cudalabs::LabDriver& driver, const Options& options, const Problems& problems,
                    const CheckedLadders& checked, cudalabs::DeviceArena& arena) {
  const std::size_t count = options.count, offset = options.offset;
  const auto seed = [&](const std::string& what) { return driver.seed_for(what); };
  const auto workspace = [&](std::size_t bytes) { return arena.allocate<unsigned char>(bytes); };
  if (!checked.sum.empty()) {  // the copy of its input is the bandwidth yardstick (read + write)
    std::vector<float> host(count);
    cudalabs::fill_uniform(host, seed("time sum"));
    const float* input = arena.upload<float>(host, offset);
    float *copy = arena.allocate<float>(count), *sum = arena.allocate<float>(1);
    const double bytes = static_cast<double>(count) * sizeof(float);
    const std::size_t cub_bytes = library::cub_sum_workspace(count);
    void* cub_workspace = workspace(cub_bytes);
    driver.add_reference(
        "reference/cudaMemcpy/" + problems.sum, 0.0, 2 * bytes, [=](cudaStream_t s) {
          CUDA_CHECK(
              cudaMemcpyAsync(copy, input, count * sizeof(float), cudaMemcpyDeviceToDevice, s));
        });
    driver.add_reference("reference/cub_sum/" + problems.sum, 0.0, bytes, [=](cudaStream_t s) {
      library::cub_sum(input, count, sum, cub_workspace, cub_bytes, s);
    });
    driver.add_reference("reference/thrust_sum/" + problems.sum, 0.0, bytes,
                         [=](cudaStream_t s) { (void)library::thrust_sum(input, count, s); });
    cudalabs::add_ladder_runs(
        driver, lab12::sum_variants(), checked.sum, problems.sum, 0.0, bytes,
        [&](const lab12::SumVariant& v) {
          const std::size_t workspace_bytes = v.workspace_bytes(count);
          return lab12::SumArgs{input, count, sum, workspace(workspace_bytes), workspace_bytes};
        },
        lab12::check_sum_in_timed_buffers);
  }
  if (!checked.scan.empty()) {  // bytes read and written once, what a one-pass scan must move
    const auto host = lab12::scan_inputs(count, seed("time scan"));
    const std::uint32_t* input = arena.upload<std::uint32_t>(host, offset);
    std::uint32_t* output = arena.allocate<std::uint32_t>(count, offset);
    const double bytes = 2.0 * static_cast<double>(count) * sizeof(std::uint32_t);
    const std::size_t cub_bytes = library::cub_scan_workspace(count);
    void* cub_workspace = workspace(cub_bytes);
    driver.add_reference("reference/cub_scan/" + problems.scan, 0.0, bytes, [=](cudaStream_t s) {
      library::cub_inclusive_scan(input, output, count, cub_workspace, cub_bytes, s);
    });
    driver.add_reference("reference/thrust_scan/" + problems.scan, 0.0, bytes, [=](cudaStream_t s) {
      library::thrust_inclusive_scan(input, output, count, s);
    });
    cudalabs::add_ladder_runs(
        driver, lab12::scan_variants(), checked.scan, problems.scan, 0.0, bytes,
        [&](const lab12::ScanVariant& v) {
          const std::size_t workspace_bytes = v.workspace_bytes(count);
          return lab12::ScanArgs{input, output, count, workspace(workspace_bytes), workspace_bytes};
        },
        lab12::check_scan_in_timed_buffers);
  }
  if (checked.histogram.empty()) return;
  auto* bins = arena.allocate<std::uint32_t>(lab12::kBins);
  const std::size_t cub_bytes = library::cub_histogram_workspace(count);
  void* cub_workspace = workspace(cub_bytes);
  for (const auto& [distribution, problem] :
       {std::pair{lab12::ByteDistribution::kUniform, problems.uniform},
        std::pair{lab12::ByteDistribution::kSkewed, problems.skewed}}) {
    const auto host = lab12::histogram_inputs(count, distribution, seed("time " + problem));
    const std::uint8_t* input = arena.upload<std::uint8_t>(host, offset);
    driver.add_reference("reference/cub_histogram/" + problem, 0.0, static_cast<double>(count),
                         [=](cudaStream_t s) {
                           library::cub_histogram(input, count, bins, cub_workspace, cub_bytes, s);
                         });
    cudalabs::add_ladder_runs(
        driver, lab12::histogram_variants(), checked.histogram, problem, 0.0,
        static_cast<double>(count),
        [&](const lab12::HistogramVariant&) {
          return lab12::HistogramArgs{input, count, bins};
        },
        [d = distribution](const auto& v, const auto& args, std::uint64_t s) {
          return lab12::check_histogram_in_timed_buffers(v, args, d, s);
        });
  }
}

// One ladder's table: the references first, then each variant against `references`' first (CUB)
// and, for the sum (`with_errors`), against the copy.
void print_table(const cudalabs::LabDriver& driver, const std::string& title, const Checked& rows,
                 const std::vector<std::string>& references, const std::string& problem,
                 const std::map<std::string, cudalabs::BenchmarkMedian>& medians,
                 bool with_errors) {
  const auto rate = [&](const std::string& name) {
    return cudalabs::counter_of(cudalabs::median_of(medians, name), "gbytes_per_s");
  };
  const double cub = rate("reference/" + references.front() + "/" + problem);
  const double copy = rate("reference/cudaMemcpy/" + problem);
  std::vector<TextTable::Column> columns = {
      {"variant", false}, {"ms", true}, {"GB/s", true}, {"% of CUB", true}};
  if (with_errors)
    columns.insert(columns.end(), {{"% of copy", true}, {"|error|", true}, {"bound", true}});
  columns.push_back({"check", false});
  TextTable table(columns);
  const auto add = [&](const std::string& row, const std::string& name, const std::string& check,
                       double error, double bound) {
    const double r = rate(name), ms = cudalabs::milliseconds_of(cudalabs::median_of(medians, name));
    std::vector<std::string> cells = {row, TextTable::number(ms, 3), TextTable::number(r, 0),
                                      TextTable::number(100.0 * r / cub, 1)};
    if (with_errors) {  // the copy's bandwidth counts its bytes read and written; a sum only reads
      cells.insert(cells.end(), {TextTable::number(100.0 * r / copy, 1),
                                 TextTable::scientific(error), TextTable::scientific(bound)});
    }
    cells.push_back(check);
    table.add_row(cells);
  };
  for (const std::string& reference : references)
    add(reference, "reference/" + reference + "/" + problem, "reference", NAN, NAN);
  for (const auto& row : rows) {
    const std::string name = "lab12/" + row.name + "/" + problem;
    add(row.name, name, driver.check_cell(row.outcome, name), row.timed.error, row.timed.bound);
  }
  driver.out() << "\n" << title << "\n";
  table.print(driver.out());
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{
      "Lab 12: reductions, scans and histograms. Checks every variant against the CPU references, "
      "then times them next to CUB, Thrust and cudaMemcpy."};
  cudalabs::add_integer_flag(app, "--n,--count", options.count, 1, 0x7FFFFFFF,
                             "Elements of the sum and the scan, bytes of the histogram");
  cudalabs::add_integer_flag(app, "--offset", options.offset, 0, 15,
                             "Elements the timed arrays start past a 16-byte boundary");
  cudalabs::LabDriver driver({"lab12", "reductions, scans and histograms"}, app);
  const auto names = cudalabs::variant_names(lab12::sum_variants(), lab12::scan_variants(),
                                             lab12::histogram_variants());
  if (!driver.parse(argc, argv, names)) return cudalabs::kExitOk;
  driver.open_device();
  // The checks hold two sum inputs; the timing an input, an output and CUB's scratch: about three
  // arrays of n floats at once. The default shrinks to this GPU; a given --n is refused instead.
  const auto bytes_for = [](long long count) {
    return 3 * (static_cast<std::size_t>(count) + 16) * sizeof(float) + (64 << 20);
  };
  driver.shrink_default({"--n"}, "--n", options.count, 1 << 20, bytes_for);
  cudalabs::require_device_memory(bytes_for(options.count), "--n " + std::to_string(options.count));
  driver.begin();
  const CheckedLadders checked = check_all(driver, options);
  if (driver.verify_only()) return driver.exit_code(checked.all_passed);
  const Problems problems(options);
  cudalabs::DeviceArena arena;
  add_timed_runs(driver, options, problems, checked, arena);
  const auto medians = driver.time_and_recheck();
  const std::string n = std::to_string(options.count);
  if (!checked.sum.empty()) {
    print_table(driver, "sum of " + n + " floats (" + problems.sum + ")", checked.sum,
                {"cub_sum", "thrust_sum", "cudaMemcpy"}, problems.sum, medians, true);
  }
  if (!checked.scan.empty()) {
    print_table(driver,
                "inclusive scan of " + n + " uint32 (" + problems.scan +
                    "; GB/s counts one read and one write)",
                checked.scan, {"cub_scan", "thrust_scan"}, problems.scan, medians, false);
  }
  for (const std::string& problem : {problems.uniform, problems.skewed}) {
    if (checked.histogram.empty()) break;
    print_table(driver, "histogram of " + n + " bytes (" + problem + ")", checked.histogram,
                {"cub_histogram"}, problem, medians, false);
  }
  return driver.exit_code(checked.all_passed);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
