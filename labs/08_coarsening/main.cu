// Lab 08 driver (the protocol: common/lab_driver.h): checks every coarsening factor against the CPU
// reference on [COARSEN-KGP]'s two problems (or a shape given by flags), times them, checks them
// again in their timed buffers, and prints, per factor, what the thesis tabulates: block size,
// registers per thread, theoretical occupancy, time, speedup over factor 1, GFLOP/s.
#include "common/conv_check.h"
#include "common/device_arena.h"
#include "common/lab_driver.h"
#include "common/launch_report.h"
#include "common/random_fill.h"
#include "common/text_table.h"
#include "labs/08_coarsening/lab.h"

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using cudalabs::ConvShape;
using lab08::ConvVariant;

struct Options {
  std::string case_name = "all";
  ConvShape custom = lab08::kSeedCases[0].shape;
  bool custom_given = false;
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
}

// Lab 08 chooses its variants by --factor, not by name.
cudalabs::DriverFlags factor_flags() {
  cudalabs::DriverFlags flags;
  flags.checked = "factor";
  flags.variant_flag = false;
  flags.number_flag = "--factor";
  flags.number_help = "Coarsening factor to run (repeatable; default: 1 2 4 8 16 32)";
  for (const ConvVariant& variant : lab08::variants()) flags.numbers.push_back(variant.factor);
  return flags;
}

std::vector<Problem> problems(const Options& options) {
  if (options.custom_given) {
    cudalabs::validate_conv_shape(options.custom, "--n/--h/--w/--c/--f/--r/--s");
    return {{options.custom.label(), "custom", options.custom}};
  }
  std::vector<Problem> chosen;
  for (const lab08::SeedCase& seed_case : lab08::kSeedCases) {
    if (options.case_name == "all" || options.case_name == seed_case.name)
      chosen.push_back({seed_case.name, seed_case.description, seed_case.shape});
  }
  return chosen;
}

// One factor on one problem: its check and its launch resources.
struct Row {
  const ConvVariant* variant;
  cudalabs::ConvCheckReport check;
  cudalabs::LaunchReport launch;
  std::string benchmark(const Problem& problem) const {
    return "lab08/" + std::string(variant->name) + "/" + problem.name;
  }
};

void print_table(const cudalabs::LabDriver& driver, const Problem& problem,
                 const std::vector<Row>& rows,
                 const std::map<std::string, cudalabs::BenchmarkMedian>& medians) {
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
  const auto median = [&](const Row& row) {
    return cudalabs::median_of(medians, row.benchmark(problem));
  };
  double base_ms = std::nan("");
  for (const Row& row : rows)
    if (row.variant->factor == 1) base_ms = cudalabs::milliseconds_of(median(row));
  for (const Row& row : rows) {
    const double ms = cudalabs::milliseconds_of(median(row));
    table.add_row(
        {std::to_string(row.variant->factor), std::to_string(row.launch.launch.threads_per_block()),
         std::to_string(row.launch.registers_per_thread), std::to_string(row.launch.local_bytes),
         cudalabs::TextTable::number(100.0 * row.launch.occupancy.occupancy, 1),
         row.launch.occupancy.limiter, cudalabs::TextTable::number(ms, 3),
         cudalabs::TextTable::number(base_ms / ms, 2),
         cudalabs::TextTable::number(cudalabs::counter_of(median(row), "gflops"), 0),
         driver.check_cell(row.check.outcome, row.benchmark(problem))});
  }
  driver.out() << "\n"
               << problem.name << " (" << problem.description << "): " << problem.shape.label()
               << ", " << cudalabs::TextTable::number(problem.shape.flops() * 1e-9, 3)
               << " GFLOP\n";
  table.print(driver.out());
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

// Every chosen factor on every problem against the CPU reference, with its launch resources.
std::map<std::string, std::vector<Row>> check_factors(const cudalabs::LabDriver& driver,
                                                      const std::vector<Problem>& chosen,
                                                      bool& all_passed) {
  const cudalabs::OccupancyLimits limits = cudalabs::OccupancyLimits::for_device(driver.device());
  std::map<std::string, std::vector<Row>> rows;
  for (const Problem& problem : chosen) {
    cudalabs::ConvVerifier verifier(problem.shape, driver.seed_for("verify " + problem.name));
    driver.out() << "check: " << problem.name << " " << problem.shape.label() << " against the "
                 << verifier.reference_description() << "\n";
    for (const ConvVariant& variant : lab08::variants()) {
      if (!driver.chosen_number(variant.factor)) continue;
      Row row{&variant, verifier.check(variant.launch),
              cudalabs::report_launch(variant.name, variant.describe(problem.shape), limits)};
      driver.out() << "  " << variant.name << ": " << row.check.message << "\n";
      all_passed = all_passed && row.check.outcome == cudalabs::CheckOutcome::kPassed;
      rows[problem.name].push_back(std::move(row));
    }
  }
  return rows;
}

// Every passing factor on every problem in its timed buffers, with its launch counters; each is
// checked again there on fresh inputs (one draw and one reference per problem, shared by its
// factors).
void add_timed_runs(cudalabs::LabDriver& driver, const std::vector<Problem>& chosen,
                    const std::map<std::string, std::vector<Row>>& rows,
                    cudalabs::DeviceArena& arena) {
  for (const Problem& problem : chosen) {
    const ConvShape shape = problem.shape;
    std::vector<float> input(shape.input_elements()), filter(shape.filter_elements());
    cudalabs::fill_uniform(input, driver.seed_for("time input " + problem.name));
    cudalabs::fill_uniform(filter, driver.seed_for("time filter " + problem.name));
    const cudalabs::ConvArgs args{shape, arena.upload<float>(input), arena.upload<float>(filter),
                                  arena.allocate<float>(shape.output_elements())};
    const auto recheck = std::make_shared<std::unique_ptr<cudalabs::ConvVerifier>>();
    const std::uint64_t seed = driver.seed_for("recheck " + problem.name);
    for (const Row& row : rows.at(problem.name)) {
      if (row.check.outcome != cudalabs::CheckOutcome::kPassed) continue;
      const cudalabs::LaunchReport launch = row.launch;
      const ConvVariant* variant = row.variant;
      driver.add_timed(
          {row.benchmark(problem), [=](cudaStream_t stream) { variant->launch(args, stream); },
           shape.flops(), 0.0,
           [launch](benchmark::State& state) {
             state.counters["registers"] = launch.registers_per_thread;
             state.counters["occupancy"] = 100.0 * launch.occupancy.occupancy;
             state.counters["block"] = launch.launch.threads_per_block();
             state.counters["spill_bytes"] = static_cast<double>(launch.local_bytes);
           },
           [=] {
             if (!*recheck) *recheck = std::make_unique<cudalabs::ConvVerifier>(shape, seed);
             const cudalabs::ConvCheckReport report = (*recheck)->check_in(variant->launch, args);
             return cudalabs::Recheck{report.outcome == cudalabs::CheckOutcome::kPassed,
                                      "timed buffers refilled: " + report.message};
           }});
    }
  }
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{
      "Lab 08: thread coarsening of a shared-memory convolution ([COARSEN-KGP]). Checks every "
      "coarsening factor against the CPU reference, then times them."};
  register_flags(app, options);
  cudalabs::LabDriver driver({"lab08", "thread coarsening of a shared-memory convolution"}, app,
                             factor_flags());
  if (!driver.parse(argc, argv, cudalabs::variant_names(lab08::variants()))) {
    return cudalabs::kExitOk;
  }
  const std::vector<Problem> chosen = problems(options);
  for (const Problem& problem : chosen) {
    for (const ConvVariant& variant : lab08::variants())
      if (driver.chosen_number(variant.factor)) variant.describe(problem.shape);  // tiling fits?
  }
  driver.open_device();
  require_room(chosen);
  driver.begin();  // the build report: JIT-compiled from older PTX?
  bool all_passed = true;
  const std::map<std::string, std::vector<Row>> rows = check_factors(driver, chosen, all_passed);
  std::map<std::string, cudalabs::BenchmarkMedian> medians;
  cudalabs::DeviceArena arena;
  if (!driver.verify_only()) {
    add_timed_runs(driver, chosen, rows, arena);
    medians = driver.time_and_recheck();
  }
  for (const Problem& problem : chosen)
    print_table(driver, problem, rows.at(problem.name), medians);
  return driver.exit_code(all_passed);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
