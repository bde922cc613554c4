// Lab 08 driver: checks every coarsening factor against the CPU reference on [COARSEN-KGP]'s two
// problems (or a shape given by flags), then times them and prints, per factor, what the thesis
// tabulates: block size, registers per thread, theoretical occupancy, time, speedup over factor 1,
// GFLOP/s.
#include "common/benchmark_support.h"
#include "common/build_report.h"
#include "common/cli.h"
#include "common/conv_check.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/launch_report.h"
#include "common/random_fill.h"
#include "common/text_table.h"
#include "labs/08_coarsening/lab.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using cudalabs::ConvShape;
using lab08::ConvVariant;

struct Options {
  std::string case_name = "all";
  ConvShape custom = lab08::kSeedCases[0].shape;
  bool custom_given = false;
  std::vector<int> factors;
  cudalabs::TimingOptions timing;
  std::string seed_text;
  bool verify_only = false;
  bool list = false;
  std::string results_dir;
  std::string results_tag;
};

struct Problem {
  std::string name;  // case1, case2, or the shape's label
  std::string description;
  ConvShape shape;
};

void register_flags(CLI::App& app, Options& options) {
  // --h is the image height: help keeps only its long name, which every CLI11 version tells apart
  // (newer ones refuse --h next to -h).
  app.set_help_flag("--help", "Print this help message and exit");
  app.add_option("--case", options.case_name,
                 "case1, case2 or all ([COARSEN-KGP]'s problems; default all)")
      ->check(CLI::IsMember({"case1", "case2", "all"}))
      ->type_name("case1|case2|all");
  const std::pair<const char*, int ConvShape::*> sizes[] = {
      {"--n", &ConvShape::n}, {"--h", &ConvShape::h}, {"--w", &ConvShape::w},
      {"--c", &ConvShape::c}, {"--f", &ConvShape::f}, {"--r", &ConvShape::r},
      {"--s", &ConvShape::s}};
  const char* help[] = {"Images in the batch", "Image height", "Image width", "Channels", "Filters",
                        "Filter height",       "Filter width"};
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    int& target = options.custom.*sizes[i].second;
    cudalabs::add_integer_flag(
        app, sizes[i].first, target, 1, 1 << 20,
        std::string(help[i]) + " of a custom problem (unset sizes: case I's)")
        ->each([&options](const std::string&) { options.custom_given = true; });
  }
  app.add_option_function<std::vector<std::string>>(
         "--factor",
         [&options](const std::vector<std::string>& texts) {
           for (const std::string& text : texts) {
             const int factor =
                 static_cast<int>(cudalabs::parse_integer_flag("--factor", text, 1, 32));
             if ((factor & (factor - 1)) != 0) {
               throw cudalabs::FlagError("--factor: invalid value '" + text +
                                         "' (expected 1, 2, 4, 8, 16 or 32)");
             }
             options.factors.push_back(factor);
           }
         },
         "Coarsening factor to run (repeatable; default: 1 2 4 8 16 32)")
      ->type_name(cudalabs::kIntegerValueName);
  cudalabs::add_integer_flag(app, "--repetitions", options.timing.repetitions, 1, 1000,
                             "Timed repetitions per factor; tables show their median");
  cudalabs::add_number_flag(app, "--min-time", options.timing.min_time_s, 0.0, 60.0,
                            "Minimum timed seconds per repetition");
  cudalabs::add_integer_flag(app, "--warmups", options.timing.warmups, 0, 1000,
                             "Untimed launches before each repetition");
  app.add_option("--seed", options.seed_text,
                 "Seed of the random inputs (default: CUDALABS_SEED or fresh)")
      ->type_name("SEED");
  app.add_flag("--verify-only", options.verify_only, "Check every factor, time nothing");
  app.add_flag("--list", options.list, "List the variants and exit");
  app.add_option("--results-dir", options.results_dir,
                 "Write the Google Benchmark JSON to DIR/lab08_<device>.json")
      ->type_name("DIR");
  app.add_option("--results-tag", options.results_tag,
                 "Name the JSON DIR/lab08_<TAG>_<device>.json instead")
      ->type_name("TAG");
}

std::vector<Problem> problems(const Options& options) {
  if (options.custom_given) {
    cudalabs::validate_conv_shape(options.custom, "--n/--h/--w/--c/--f/--r/--s");
    return {{options.custom.label(), "custom", options.custom}};
  }
  std::vector<Problem> chosen;
  for (const lab08::SeedCase& seed_case : lab08::kSeedCases) {
    if (options.case_name == "all" || options.case_name == seed_case.name) {
      chosen.push_back({seed_case.name, seed_case.description, seed_case.shape});
    }
  }
  return chosen;
}

std::vector<const ConvVariant*> selected_variants(const std::vector<int>& factors) {
  std::vector<const ConvVariant*> selected;
  for (const ConvVariant& variant : lab08::variants()) {
    if (factors.empty() ||
        std::find(factors.begin(), factors.end(), variant.factor) != factors.end()) {
      selected.push_back(&variant);
    }
  }
  return selected;
}

// One factor on one problem: its check, its launch resources, its timing.
struct Row {
  const ConvVariant* variant;
  cudalabs::ConvCheckReport check;
  cudalabs::LaunchReport launch;
  std::optional<cudalabs::BenchmarkMedian> timing;
};

void print_table(std::ostream& out, const Problem& problem, const std::vector<Row>& rows) {
  cudalabs::TextTable table({{"factor", true},
                             {"block", true},
                             {"registers", true},
                             {"spill B", true},
                             {"theor. occ. %", true},
                             {"limited by", false},
                             {"ms", true},
                             {"speedup", true},
                             {"GFLOP/s", true},
                             {"check", false}});
  double base_ms = std::nan("");
  for (const Row& row : rows) {
    if (row.variant->factor == 1 && row.timing) base_ms = row.timing->real_time_ms;
  }
  for (const Row& row : rows) {
    const double ms = row.timing ? row.timing->real_time_ms : std::nan("");
    const double gflops = row.timing ? row.timing->counters.at("gflops") : std::nan("");
    table.add_row(
        {std::to_string(row.variant->factor), std::to_string(row.launch.launch.threads_per_block()),
         std::to_string(row.launch.registers_per_thread), std::to_string(row.launch.local_bytes),
         cudalabs::TextTable::number(100.0 * row.launch.occupancy.occupancy, 1),
         row.launch.occupancy.limiter, cudalabs::TextTable::number(ms, 3),
         cudalabs::TextTable::number(base_ms / ms, 2), cudalabs::TextTable::number(gflops, 0),
         cudalabs::outcome_text(row.check.outcome)});
  }
  out << "\n"
      << problem.name << " (" << problem.description << "): " << problem.shape.label() << ", "
      << cudalabs::TextTable::number(problem.shape.flops() * 1e-9, 3) << " GFLOP\n";
  table.print(out);
}

// Checker (input, filter, output + guard) and timing (the same again) copies, refused before any
// allocation when a problem cannot fit.
void require_room(const std::vector<Problem>& chosen) {
  for (const Problem& problem : chosen) {
    const std::size_t floats = problem.shape.input_elements() + problem.shape.filter_elements() +
                               problem.shape.output_elements();
    cudalabs::require_device_memory(2 * floats * sizeof(float) + (1 << 20),
                                    "--n/--h/--w/--c/--f/--r/--s " + problem.shape.label());
  }
}

// Every factor on every problem against the CPU reference, with its launch resources.
std::map<std::string, std::vector<Row>> check_factors(
    std::ostream& out, const std::vector<Problem>& chosen,
    const std::vector<const ConvVariant*>& selected, const cudalabs::DeviceInfo& device,
    std::uint64_t seed, bool& all_passed) {
  const cudalabs::OccupancyLimits limits = cudalabs::OccupancyLimits::for_device(device);
  std::map<std::string, std::vector<Row>> rows;
  all_passed = true;
  for (const Problem& problem : chosen) {
    cudalabs::ConvVerifier verifier(problem.shape,
                                    cudalabs::derive_seed(seed, "verify " + problem.name));
    out << "check: " << problem.name << " " << problem.shape.label() << " against the "
        << verifier.reference_description() << "\n";
    for (const ConvVariant* variant : selected) {
      Row row{variant, verifier.check(variant->launch),
              cudalabs::report_launch(variant->name, variant->describe(problem.shape), limits),
              std::nullopt};
      out << "  " << variant->name << ": " << row.check.message << "\n";
      all_passed = all_passed && row.check.outcome == cudalabs::CheckOutcome::kPassed;
      rows[problem.name].push_back(std::move(row));
    }
  }
  return rows;
}

// The timed copies of one problem's tensors.
struct Buffers {
  cudalabs::DeviceBuffer<float> input, filter, output;
};

// Registers every passing factor on every problem; `buffers` keeps their tensors alive.
void register_benchmarks(const std::vector<Problem>& chosen,
                         const std::map<std::string, std::vector<Row>>& rows,
                         const Options& options, std::uint64_t seed,
                         std::vector<std::unique_ptr<Buffers>>& buffers) {
  for (const Problem& problem : chosen) {
    std::vector<float> input(problem.shape.input_elements()),
        filter(problem.shape.filter_elements());
    cudalabs::fill_uniform(input, cudalabs::derive_seed(seed, "time input " + problem.name));
    cudalabs::fill_uniform(filter, cudalabs::derive_seed(seed, "time filter " + problem.name));
    buffers.push_back(std::make_unique<Buffers>(
        Buffers{cudalabs::DeviceBuffer<float>(std::span<const float>(input)),
                cudalabs::DeviceBuffer<float>(std::span<const float>(filter)),
                cudalabs::DeviceBuffer<float>(problem.shape.output_elements())}));
    Buffers& b = *buffers.back();
    const cudalabs::ConvArgs args{problem.shape, b.input.data(), b.filter.data(), b.output.data()};
    const int warmups = options.timing.warmups;
    for (const Row& row : rows.at(problem.name)) {
      if (row.check.outcome != cudalabs::CheckOutcome::kPassed) continue;
      const cudalabs::LaunchReport launch = row.launch;
      const ConvVariant* variant = row.variant;
      cudalabs::register_timed_benchmark(
          "lab08/" + std::string(variant->name) + "/" + problem.name,
          [args, launch, variant, warmups, flops = problem.shape.flops()](benchmark::State& state) {
            cudalabs::time_iterations(
                state, [&](cudaStream_t stream, int) { variant->launch(args, stream); }, flops, 0.0,
                warmups);
            state.counters["registers"] = launch.registers_per_thread;
            state.counters["occupancy"] = 100.0 * launch.occupancy.occupancy;
            state.counters["block"] = launch.launch.threads_per_block();
            state.counters["spill_bytes"] = static_cast<double>(launch.local_bytes);
          },
          options.timing);
    }
  }
}

int run(int argc, char** argv) {
  // ---- Parse ----
  Options options;
  CLI::App app{
      "Lab 08: thread coarsening of a shared-memory convolution ([COARSEN-KGP]). Checks every "
      "coarsening factor against the CPU reference, then times them."};
  register_flags(app, options);
  std::vector<std::string> benchmark_args = cudalabs::parse_flags_with_benchmark(app, argc, argv);
  if (options.list) {
    for (const ConvVariant& variant : lab08::variants())
      std::cout << variant.name << "\t" << variant.summary << "\n";
    return cudalabs::kExitOk;
  }
  const std::vector<Problem> chosen = problems(options);
  const std::vector<const ConvVariant*> selected = selected_variants(options.factors);
  for (const Problem& problem : chosen) {
    for (const ConvVariant* variant : selected)
      variant->describe(problem.shape);  // refuses impossible tilings
  }
  const std::uint64_t seed = options.seed_text.empty()
                                 ? cudalabs::run_seed()
                                 : static_cast<std::uint64_t>(cudalabs::parse_integer_flag(
                                       "--seed", options.seed_text, 0, (1LL << 62)));
  std::ostream& out =
      cudalabs::benchmark_stdout_is_machine_readable(benchmark_args) ? std::cerr : std::cout;

  // ---- Check the device and the sizes ----
  cudalabs::require_gpu();
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  require_room(chosen);
  if (!options.results_dir.empty()) {
    std::filesystem::create_directories(options.results_dir);
    const std::string tag = options.results_tag.empty() ? "" : options.results_tag + "_";
    benchmark_args.push_back("--benchmark_out=" + options.results_dir + "/lab08_" + tag +
                             device.slug() + ".json");
    benchmark_args.push_back("--benchmark_out_format=json");
  }
  cudalabs::initialize_benchmark(benchmark_args);
  out << "lab08: thread coarsening of a shared-memory convolution\n"
      << "device: " << device.name << " (sm_" << device.major << device.minor << ", "
      << device.sm_count << " SMs, driver "
      << cudalabs::DeviceInfo::version_text(device.driver_version) << "), seed=" << seed << "\n";
  cudalabs::print_build_report(out, nullptr);  // JIT-compiled from older PTX?

  // ---- Verify ----
  bool all_passed = true;
  std::map<std::string, std::vector<Row>> rows =
      check_factors(out, chosen, selected, device, seed, all_passed);
  if (options.verify_only) {
    for (const Problem& problem : chosen) print_table(out, problem, rows[problem.name]);
    return all_passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
  }

  // ---- Time, then report ----
  cudalabs::add_benchmark_context(device, argc, argv, seed);
  std::vector<std::unique_ptr<Buffers>> buffers;
  register_benchmarks(chosen, rows, options, seed, buffers);
  out << "timing: " << options.timing.repetitions << " repetitions of at least "
      << options.timing.min_time_s << " s each, CUDA-event times, medians\n";
  const std::map<std::string, cudalabs::BenchmarkMedian> medians =
      cudalabs::run_benchmarks(benchmark_args, out);
  for (const Problem& problem : chosen) {
    for (Row& row : rows[problem.name]) {
      if (auto it = medians.find("lab08/" + std::string(row.variant->name) + "/" + problem.name);
          it != medians.end()) {
        row.timing = it->second;
      }
    }
    print_table(out, problem, rows[problem.name]);
  }
  return all_passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
