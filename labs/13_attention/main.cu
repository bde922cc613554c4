// Lab 13 driver (the protocol: common/lab_driver.h): checks every softmax and attention rung
// against the CPU reference in double (at the timed sizes, sampled rows for attention, and at odd
// sizes, every row), times them (the softmax next to a copy of the same bytes, attention next to
// cuBLAS's unfused attention and, where PyTorch is installed, its fused backends, run by
// tools/pytorch_attention.py on the same GPU after the lab's timings), checks them again in their
// timed buffers, and prints a table per problem.
#include "attention_runs.h"
#include "checks.h"
#include "common/cuda_check.h"
#include "common/device_arena.h"
#include "common/lab_driver.h"
#include "common/ladder.h"
#include "common/text_table.h"
#include "lab.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using cudalabs::TextTable;
using lab13::AttentionShape;
using Checked = std::vector<cudalabs::CheckedVariant<lab13::CheckReport>>;
using Medians = std::map<std::string, cudalabs::BenchmarkMedian>;

struct Options {
  int rows = 65536;
  int columns = 4096;
  AttentionShape shape{4, 16, 4096, 128, false};
  std::string mask = "both";
  bool no_pytorch = false;
  std::string dump_dir;
};

void add_lab_flags(CLI::App& app, Options& options) {
  cudalabs::add_integer_flag(app, "--rows", options.rows, 1, 1 << 24, "Rows of the softmax");
  cudalabs::add_integer_flag(app, "--columns", options.columns, 1, 1 << 24,
                             "Columns of the softmax");
  cudalabs::add_integer_flag(app, "--batch", options.shape.batch, 1, 65535, "Attention's batch");
  cudalabs::add_integer_flag(app, "--heads", options.shape.heads, 1, 65535,
                             "Attention's heads per batch entry (batch * heads <= 65535)");
  cudalabs::add_integer_flag(app, "--sequence", options.shape.sequence, 1, 1 << 20,
                             "Attention's sequence length (queries and keys)");
  app.add_option_function<std::string>(
         "--head-dim",
         [&options](const std::string& text) {
           const long long d = cudalabs::parse_integer_flag("--head-dim", text, 1, 1024);
           if (d != 64 && d != 128)
             throw cudalabs::FlagError("--head-dim: invalid value '" + text +
                                       "' (expected 64 or 128)");
           options.shape.head_dim = static_cast<int>(d);
         },
         "Attention's head dimension: 64 or 128 (default 128)")
      ->type_name("64|128");
  app.add_option("--mask", options.mask, "none, causal or both (default both)")
      ->check(CLI::IsMember({"none", "causal", "both"}))
      ->type_name("none|causal|both");
  app.add_flag("--no-pytorch", options.no_pytorch,
               "Do not time PyTorch's attention backends (tools/pytorch_attention.py)");
  app.add_option("--dump-dir", options.dump_dir,
                 "Write the odd attention problem's inputs and each variant's output (raw BF16) "
                 "to DIR, for tools/pytorch_attention.py compare")
      ->type_name("DIR");
}

struct CheckedLadders {
  Checked softmax;
  std::vector<lab13::AttentionProblem> attention;
  bool all_passed = true;
};

CheckedLadders check_all(cudalabs::LabDriver& driver, const Options& options) {
  std::ostream& out = driver.out();
  const auto& chosen = driver.options().variants;
  CheckedLadders checked;
  if (cudalabs::any_chosen(chosen, lab13::softmax_variants())) {
    out << "check: the softmax (every output within its bound)\n";
    using lab13::SoftmaxInputs, lab13::SoftmaxVerifier;
    SoftmaxVerifier timed(options.rows, options.columns, SoftmaxInputs::kUniform, 0, false,
                          driver.seed_for("softmax"));
    SoftmaxVerifier masked(1000, 1001, SoftmaxInputs::kMasked, 1, true,
                           driver.seed_for("softmax masked"));
    SoftmaxVerifier long_rows(37, 5000, SoftmaxInputs::kLarge, 3, false,
                              driver.seed_for("softmax long"));
    checked.softmax =
        cudalabs::check_ladder(out, chosen, lab13::softmax_variants(),
                               std::vector{&timed, &masked, &long_rows}, checked.all_passed);
  }
  if (!cudalabs::any_chosen(chosen, lab13::attention_variants())) return checked;
  for (const bool causal : {false, true}) {
    if (options.mask != "both" && causal != (options.mask == "causal")) continue;
    AttentionShape shape = options.shape;
    shape.causal = causal;
    checked.attention.push_back(
        lab13::check_attention(driver, shape, options.dump_dir, checked.all_passed));
  }
  return checked;
}

std::string softmax_problem(const Options& options) {
  return "softmax_r" + std::to_string(options.rows) + "c" + std::to_string(options.columns);
}

// The passing rungs and their yardsticks in their timed buffers; `arena` and `cublas` keep what
// they use.
void add_timed_runs(cudalabs::LabDriver& driver, const Options& options,
                    const CheckedLadders& checked, cudalabs::DeviceArena& arena,
                    std::vector<std::unique_ptr<lab13_library::CublasAttention>>& cublas) {
  if (!checked.softmax.empty()) {
    const int rows = options.rows, columns = options.columns;
    const std::size_t count = static_cast<std::size_t>(rows) * columns;
    const auto host = lab13::softmax_inputs(rows, columns, lab13::SoftmaxInputs::kUniform,
                                            driver.seed_for("time softmax"));
    const float* input = arena.upload<float>(host);
    float* output = arena.allocate<float>(count);
    const double bytes = 2.0 * static_cast<double>(count) * sizeof(float);  // read + write
    const std::string problem = softmax_problem(options);
    driver.add_reference("reference/cudaMemcpy/" + problem, 0.0, bytes, [=](cudaStream_t s) {
      CUDA_CHECK(
          cudaMemcpyAsync(output, input, count * sizeof(float), cudaMemcpyDeviceToDevice, s));
    });
    cudalabs::add_ladder_runs(
        driver, lab13::softmax_variants(), checked.softmax, problem, 0.0, bytes,
        [&](const lab13::SoftmaxVariant&) {
          return lab13::SoftmaxArgs{input, output, rows, columns};
        },
        [](const lab13::SoftmaxVariant& v, const lab13::SoftmaxArgs& args, std::uint64_t seed) {
          lab13::SoftmaxVerifier fresh(args.rows, args.columns, lab13::SoftmaxInputs::kUniform, 0,
                                       false, seed);
          return fresh.check_in_timed_buffers(v, args);
        });
  }
  for (const lab13::AttentionProblem& problem : checked.attention)
    lab13::add_attention_runs(driver, problem, arena, cublas);
}

void print_tables(const cudalabs::LabDriver& driver, const Options& options,
                  const CheckedLadders& checked, const Medians& medians,
                  const lab13_library::SdpaResults& sdpa) {
  using cudalabs::counter_of, cudalabs::median_of, cudalabs::milliseconds_of;
  std::ostream& out = driver.out();
  const auto error_cell = [](const auto& row) {
    return TextTable::number(row.skipped.empty() ? row.timed.worst_fraction : NAN, 2);
  };
  if (!checked.softmax.empty()) {
    const std::string problem = softmax_problem(options);
    const auto copy = median_of(medians, "reference/cudaMemcpy/" + problem);
    const double copy_rate = counter_of(copy, "gbytes_per_s");
    TextTable table({{"variant", false},
                     {"ms", true},
                     {"GB/s", true},
                     {"% of copy", true},
                     {"error / bound", true},
                     {"check", false}});
    table.add_row({"cudaMemcpy", TextTable::number(milliseconds_of(copy), 3),
                   TextTable::number(copy_rate, 0), "100.0", "-", "reference"});
    for (const auto& row : checked.softmax) {
      const std::string name = "lab13/" + row.name + "/" + problem;
      const auto m = median_of(medians, name);
      const double rate = counter_of(m, "gbytes_per_s");
      table.add_row({row.name, TextTable::number(milliseconds_of(m), 3), TextTable::number(rate, 0),
                     TextTable::number(100.0 * rate / copy_rate, 1), error_cell(row),
                     driver.check_cell(row.outcome, name, row.skipped)});
    }
    out << "\nrow softmax, " << options.rows << " x " << options.columns
        << " FP32 (GB/s: one read and one write of the array)\n";
    table.print(out);
  }
  for (const lab13::AttentionProblem& problem : checked.attention)
    lab13::print_attention_table(driver, problem, medians, sdpa);
}

// What the fused rungs need of the GPU and of the build.
constexpr cudalabs::BuildFeature kFeatures[] = {
    {"BF16 mma.sync and cp.async", 80, "flash_mma", "is skipped"},
    {"wgmma", 90, "flash_wgmma", "is skipped", true},
};

int run(int argc, char** argv) {
  Options options;
  CLI::App app{
      "Lab 13: softmax and attention. Checks every variant against the CPU reference, then times "
      "them next to a copy (softmax) and cuBLAS (attention)."};
  add_lab_flags(app, options);
  cudalabs::LabDriver driver({"lab13", "softmax and attention"}, app);
  const auto names =
      cudalabs::variant_names(lab13::softmax_variants(), lab13::attention_variants());
  if (!driver.parse(argc, argv, names)) return cudalabs::kExitOk;
  if (options.shape.heads_total() > 65535) {
    throw cudalabs::FlagError("--batch/--heads: batch * heads = " +
                              std::to_string(options.shape.heads_total()) + " must be <= 65535");
  }
  driver.open_device();
  // The softmax holds three arrays of rows x columns floats; attention its FP32 and BF16 scores
  // (the unfused reference's) and eight BF16 arrays of the inputs' size.
  const auto softmax_bytes = [&](long long rows) {
    return static_cast<std::size_t>(3.0 * rows * static_cast<double>(options.columns) * 4) +
           (std::size_t{256} << 20);
  };
  const auto attention_bytes = [&](long long sequence) {
    AttentionShape shape = options.shape;
    shape.sequence = static_cast<int>(sequence);
    const double scores = static_cast<double>(shape.heads_total()) * sequence * sequence;
    return static_cast<std::size_t>(scores * (4 + 6) +
                                    8.0 * static_cast<double>(shape.elements()) * 2) +
           (std::size_t{256} << 20);
  };
  driver.shrink_default({"--rows", "--columns"}, "--rows", options.rows, 1024, softmax_bytes);
  driver.shrink_default({"--batch", "--heads", "--sequence", "--head-dim"}, "--sequence",
                        options.shape.sequence, 256, attention_bytes);
  cudalabs::require_device_memory(
      std::max(softmax_bytes(options.rows), attention_bytes(options.shape.sequence)),
      "--rows/--columns/--batch/--heads/--sequence");
  const AttentionShape probe{1, 1, 64, 128, false};
  const void* feature_kernels[] = {lab13::attention_variants()[1].describe(probe).kernel,
                                   lab13::attention_variants()[2].describe(probe).kernel};
  driver.begin(false, nullptr, kFeatures, feature_kernels);

  const CheckedLadders checked = check_all(driver, options);
  if (driver.verify_only()) return driver.exit_code(checked.all_passed);
  cudalabs::DeviceArena arena;
  std::vector<std::unique_ptr<lab13_library::CublasAttention>> cublas;
  add_timed_runs(driver, options, checked, arena, cublas);
  const Medians medians = driver.time_and_recheck();
  lab13_library::SdpaResults sdpa;
  if (!checked.attention.empty() && options.no_pytorch) sdpa.skipped["all"] = "--no-pytorch";
  if (!checked.attention.empty() && !options.no_pytorch) {
    std::vector<std::string> labels;
    for (const auto& problem : checked.attention) labels.push_back(problem.shape.label());
    driver.out() << "timing: PyTorch's attention backends (tools/pytorch_attention.py bench)\n";
    ::setenv("CUDALABS_GIT_COMMIT", cudalabs::built_from_commit().c_str(), 0);
    // Each rung's measurement ran its launches back to back for --min-time: PyTorch's backends
    // settle as long before theirs.
    sdpa = lab13_library::time_pytorch_sdpa(labels, std::max(driver.timing().repetitions, 10),
                                            1000.0 * driver.timing().min_time_s,
                                            driver.options().results_dir);
    if (!sdpa.record.empty()) driver.out() << "pytorch: record " << sdpa.record << "\n";
  }
  print_tables(driver, options, checked, medians, sdpa);
  return driver.exit_code(checked.all_passed);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
