// Lab 13 driver: checks every softmax and attention rung against the CPU reference in double (at
// the timed sizes, sampled rows for attention, and at odd sizes, every row), then times them: the
// softmax next to a copy of the same bytes, attention next to cuBLAS's unfused attention and, where
// PyTorch is installed, its fused backends (tools/pytorch_attention.py, run by this driver on the
// same GPU after the lab's timings), and prints a table per problem.
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
#include "pytorch_sdpa.h"
#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using cudalabs::BenchmarkMedian;
using cudalabs::CheckOutcome;
using cudalabs::DeviceBuffer;
using cudalabs::TextTable;
using lab13::AttentionShape;

struct Options {
  int rows = 65536;
  int columns = 4096;
  AttentionShape shape{4, 16, 4096, 128, false};
  std::string mask = "both";
  std::vector<std::string> variants;
  cudalabs::TimingOptions timing;
  std::string seed_text;
  bool verify_only = false;
  bool no_pytorch = false;
  bool list = false;
  std::string results_dir;
  std::string results_tag;
  std::string dump_dir;
};

void register_flags(CLI::App& app, Options& options) {
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
  app.add_flag("--no-pytorch", options.no_pytorch,
               "Do not time PyTorch's attention backends (tools/pytorch_attention.py)");
  app.add_flag("--list", options.list, "List the variants and exit");
  app.add_option("--results-dir", options.results_dir,
                 "Write the Google Benchmark JSON to DIR/lab13_<device>.json")
      ->type_name("DIR");
  app.add_option("--results-tag", options.results_tag,
                 "Name the JSON DIR/lab13_<TAG>_<device>.json instead")
      ->type_name("TAG");
  app.add_option("--dump-dir", options.dump_dir,
                 "Write the odd attention problem's inputs and each variant's output (raw BF16) "
                 "to DIR, for tools/pytorch_attention.py compare")
      ->type_name("DIR");
}

std::vector<std::pair<std::string, std::string>> all_variants() {
  std::vector<std::pair<std::string, std::string>> names;
  for (const lab13::SoftmaxVariant& v : lab13::softmax_variants())
    names.emplace_back(v.name, v.summary);
  for (const lab13::AttentionVariant& v : lab13::attention_variants())
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

std::string unavailable(const lab13::SoftmaxVariant&) {
  return {};
}
std::string unavailable(const lab13::AttentionVariant& variant) {
  return variant.unavailable == nullptr ? std::string() : variant.unavailable();
}

CheckOutcome combine(CheckOutcome a, CheckOutcome b) {
  if (a == CheckOutcome::kNotImplemented && b == CheckOutcome::kNotImplemented) return a;
  if (a == CheckOutcome::kPassed && b == CheckOutcome::kPassed) return a;
  return CheckOutcome::kFailed;
}

// One row of a table: the variant, its verdict (or why it was skipped), the timed problem's error.
struct Row {
  std::string name;
  CheckOutcome outcome = CheckOutcome::kFailed;
  std::string skipped;
  double worst_fraction = std::nan("");
  std::string check_text() const {
    return skipped.empty() ? cudalabs::outcome_text(outcome) : "skipped";
  }
};

template <class Variant, class Verifier>
std::vector<Row> check_ladder(std::ostream& out, std::span<const Variant> variants,
                              const Options& options, const std::vector<Verifier*>& verifiers,
                              bool& all_passed,
                              const std::function<void(const Variant&, Verifier&)>& after = {}) {
  std::vector<Row> rows;
  for (const Variant& variant : variants) {
    if (!chosen(options, variant.name)) continue;
    Row row;
    row.name = variant.name;
    row.outcome = CheckOutcome::kNotImplemented;
    row.skipped = unavailable(variant);
    if (!row.skipped.empty()) {
      out << "  " << variant.name << ": skipped: " << row.skipped << "\n";
      rows.push_back(row);
      continue;
    }
    for (std::size_t i = 0; i < verifiers.size(); ++i) {
      const lab13::CheckReport report = verifiers[i]->check(variant);
      out << "  " << report.message << "\n";
      row.outcome = i == 0 ? report.outcome : combine(row.outcome, report.outcome);
      if (i == 0) row.worst_fraction = report.worst_fraction;
      if (after && report.outcome == CheckOutcome::kPassed) after(variant, *verifiers[i]);
    }
    all_passed = all_passed && row.outcome == CheckOutcome::kPassed;
    rows.push_back(row);
  }
  return rows;
}

std::vector<bool> masks(const Options& options) {
  if (options.mask == "none") return {false};
  if (options.mask == "causal") return {true};
  return {false, true};
}

// The odd problem every attention rung is also checked at, every row against the CPU.
AttentionShape odd_shape(int head_dim, bool causal) {
  return {1, 3, 1000, head_dim, causal};
}

void write_file(const std::filesystem::path& path, const void* data, std::size_t bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!file) throw std::runtime_error("--dump-dir: cannot write " + path.string());
}

// The odd problem's dump, as tools/pytorch_attention.py compare reads it: the inputs
// (attention_<label>.q.bf16, .k, .v) and each passing rung's output
// (attention_<label>.o.<variant>.bf16), raw BF16, and attention_<label>.json, which describes the
// problem and names its files ("inputs", "outputs"), rewritten after every output so that a stopped
// run still describes what it wrote. The tool reads exactly the files named there: the non-causal
// problem's label is a prefix of the causal one's, and no label or variant name holds a dot.
class AttentionDump {
 public:
  AttentionDump(std::filesystem::path dir, const lab13::AttentionVerifier& verifier,
                const AttentionShape& shape)
      : dir_(std::move(dir)),
        stem_("attention_" + shape.label()),
        shape_(shape),
        scale_(verifier.scale()) {
    std::filesystem::create_directories(dir_);
    const std::size_t bytes = shape.elements() * sizeof(__nv_bfloat16);
    write_file(dir_ / (stem_ + ".q.bf16"), verifier.host_q().data(), bytes);
    write_file(dir_ / (stem_ + ".k.bf16"), verifier.host_k().data(), bytes);
    write_file(dir_ / (stem_ + ".v.bf16"), verifier.host_v().data(), bytes);
    write_description();
  }

  void add_output(const std::string& variant, const std::vector<__nv_bfloat16>& output) {
    const std::string file = stem_ + ".o." + variant + ".bf16";
    write_file(dir_ / file, output.data(), output.size() * sizeof(__nv_bfloat16));
    outputs_.emplace_back(variant, file);
    write_description();
  }

 private:
  void write_description() const {
    std::ofstream json(dir_ / (stem_ + ".json"));
    json.precision(9);  // the FP32 scale exactly
    json << "{\"batch\": " << shape_.batch << ", \"heads\": " << shape_.heads
         << ", \"sequence\": " << shape_.sequence << ", \"head_dim\": " << shape_.head_dim
         << ", \"causal\": " << (shape_.causal ? "true" : "false") << ", \"scale\": " << scale_
         << ",\n \"inputs\": {\"q\": \"" << stem_ << ".q.bf16\", \"k\": \"" << stem_
         << ".k.bf16\", \"v\": \"" << stem_ << ".v.bf16\"},\n \"outputs\": {";
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      json << (i == 0 ? "" : ", ") << "\"" << outputs_[i].first << "\": \"" << outputs_[i].second
           << "\"";
    }
    json << "}}\n";
    if (!json) throw std::runtime_error("--dump-dir: cannot write " + (dir_ / stem_).string());
  }

  std::filesystem::path dir_;
  std::string stem_;
  AttentionShape shape_;
  float scale_;
  std::vector<std::pair<std::string, std::string>> outputs_;  // (variant, file)
};

struct AttentionProblem {
  AttentionShape shape;
  std::unique_ptr<lab13::AttentionVerifier> verifier;  // its inputs are the timed ones too
  std::vector<Row> rows;
};

struct Checked {
  std::vector<Row> softmax;
  std::vector<AttentionProblem> attention;
  bool all_passed = true;
};

Checked check_all(std::ostream& out, const Options& options, std::uint64_t seed) {
  Checked checked;
  if (any_chosen(options, lab13::softmax_variants())) {
    out << "check: the softmax (every output within its bound)\n";
    using lab13::SoftmaxInputs;
    lab13::SoftmaxVerifier timed(options.rows, options.columns, SoftmaxInputs::kUniform, 0, false,
                                 cudalabs::derive_seed(seed, "softmax"));
    lab13::SoftmaxVerifier masked(1000, 1001, SoftmaxInputs::kMasked, 1, true,
                                  cudalabs::derive_seed(seed, "softmax masked"));
    lab13::SoftmaxVerifier long_rows(37, 5000, SoftmaxInputs::kLarge, 3, false,
                                     cudalabs::derive_seed(seed, "softmax long"));
    checked.softmax = check_ladder(out, lab13::softmax_variants(), options,
                                   std::vector{&timed, &masked, &long_rows}, checked.all_passed);
  }
  if (!any_chosen(options, lab13::attention_variants())) return checked;
  for (const bool causal : masks(options)) {
    AttentionShape shape = options.shape;
    shape.causal = causal;
    out << "check: attention " << shape.label()
        << " (BF16; the CPU reference in double at sampled rows, every element against cuBLAS)\n";
    AttentionProblem problem{
        shape,
        std::make_unique<lab13::AttentionVerifier>(
            shape, cudalabs::derive_seed(seed, "attention " + shape.label()), true),
        {}};
    {  // cuBLAS's output, checked at the sampled rows first, then the yardstick for every element
      lab13_library::CublasAttention cublas(shape);
      DeviceBuffer<__nv_bfloat16> output(shape.elements());
      lab13::AttentionVerifier& verifier = *problem.verifier;
      cublas.run(verifier.q(), verifier.k(), verifier.v(), output.data(), verifier.scale(),
                 nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<__nv_bfloat16> host = output.to_host();
      const lab13::CheckReport report = verifier.check_output(host, "cublas_attention");
      out << "  " << report.message << "\n";
      if (report.outcome == CheckOutcome::kPassed)
        verifier.compare_everything_with(std::move(host), "cublas_attention");
    }
    const AttentionShape odd = odd_shape(shape.head_dim, causal);
    lab13::AttentionVerifier odd_verifier(odd, cudalabs::derive_seed(seed, "attention odd"), false);
    std::optional<AttentionDump> dump;
    if (!options.dump_dir.empty()) dump.emplace(options.dump_dir, odd_verifier, odd);
    problem.rows = check_ladder<lab13::AttentionVariant, lab13::AttentionVerifier>(
        out, lab13::attention_variants(), options, {problem.verifier.get(), &odd_verifier},
        checked.all_passed,
        [&](const lab13::AttentionVariant& variant, lab13::AttentionVerifier& verifier) {
          if (dump && &verifier == &odd_verifier)
            dump->add_output(variant.name, verifier.last_output());
        });
    checked.attention.push_back(std::move(problem));
  }
  return checked;
}

// Device memory the benchmarks use, kept until they have run.
struct TimingBuffers {
  std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> blocks;
  std::vector<std::unique_ptr<lab13_library::CublasAttention>> cublas;
  unsigned char* allocate(std::size_t bytes) {
    blocks.push_back(
        std::make_unique<DeviceBuffer<unsigned char>>(std::max<std::size_t>(bytes, 16)));
    return blocks.back()->data();
  }
};

void register_timed(const std::string& name, const Options& options, double flops, double bytes,
                    std::function<void(cudaStream_t)> launch) {
  cudalabs::register_timed_benchmark(
      name,
      [launch, flops, bytes, warmups = options.timing.warmups](benchmark::State& state) {
        cudalabs::time_iterations(
            state, [&](cudaStream_t stream, int) { launch(stream); }, flops, bytes, warmups);
      },
      options.timing);
}

std::string softmax_problem(const Options& options) {
  return "softmax_r" + std::to_string(options.rows) + "c" + std::to_string(options.columns);
}

const Row* find_row(const std::vector<Row>& rows, const char* name) {
  for (const Row& row : rows)
    if (row.name == name) return &row;
  return nullptr;
}

void register_all(const Options& options, const Checked& checked, std::uint64_t seed,
                  TimingBuffers& buffers) {
  if (!checked.softmax.empty()) {
    const std::size_t count = static_cast<std::size_t>(options.rows) * options.columns;
    const std::vector<float> host =
        lab13::softmax_inputs(options.rows, options.columns, lab13::SoftmaxInputs::kUniform,
                              cudalabs::derive_seed(seed, "time softmax"));
    auto* input = reinterpret_cast<float*>(buffers.allocate(count * sizeof(float)));
    auto* output = reinterpret_cast<float*>(buffers.allocate(count * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(input, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    const double bytes = 2.0 * static_cast<double>(count) * sizeof(float);  // one read, one write
    const std::string problem = softmax_problem(options);
    register_timed("reference/cudaMemcpy/" + problem, options, 0.0, bytes,
                   [=](cudaStream_t stream) {
                     CUDA_CHECK(cudaMemcpyAsync(output, input, count * sizeof(float),
                                                cudaMemcpyDeviceToDevice, stream));
                   });
    for (const lab13::SoftmaxVariant& variant : lab13::softmax_variants()) {
      const Row* row = find_row(checked.softmax, variant.name);
      if (row == nullptr || row->outcome != CheckOutcome::kPassed) continue;
      register_timed(
          "lab13/" + std::string(variant.name) + "/" + problem, options, 0.0, bytes,
          [=, &variant, rows = options.rows, columns = options.columns](cudaStream_t stream) {
            variant.launch({input, output, rows, columns}, stream);
          });
    }
  }
  for (const AttentionProblem& problem : checked.attention) {
    const AttentionShape shape = problem.shape;
    const lab13::AttentionVerifier& verifier = *problem.verifier;
    auto* output = reinterpret_cast<__nv_bfloat16*>(
        buffers.allocate(shape.elements() * sizeof(__nv_bfloat16)));
    const __nv_bfloat16 *q = verifier.q(), *k = verifier.k(), *v = verifier.v();
    const float scale = verifier.scale();
    buffers.cublas.push_back(std::make_unique<lab13_library::CublasAttention>(shape));
    lab13_library::CublasAttention* cublas = buffers.cublas.back().get();
    register_timed("reference/cublas_attention/" + shape.label(), options, shape.flops(), 0.0,
                   [=](cudaStream_t stream) { cublas->run(q, k, v, output, scale, stream); });
    for (const lab13::AttentionVariant& variant : lab13::attention_variants()) {
      const Row* row = find_row(problem.rows, variant.name);
      if (row == nullptr || row->outcome != CheckOutcome::kPassed || !row->skipped.empty())
        continue;
      const std::size_t workspace_bytes = variant.workspace_bytes(shape);
      void* workspace = buffers.allocate(workspace_bytes);
      register_timed(
          "lab13/" + std::string(variant.name) + "/" + shape.label(), options, shape.flops(), 0.0,
          [=, &variant](cudaStream_t stream) {
            variant.launch({shape, q, k, v, output, scale, workspace, workspace_bytes}, stream);
          });
    }
  }
}

std::optional<BenchmarkMedian> median(const std::map<std::string, BenchmarkMedian>& medians,
                                      const std::string& name) {
  const auto it = medians.find(name);
  if (it == medians.end()) return std::nullopt;
  return it->second;
}

double counter(const std::optional<BenchmarkMedian>& m, const char* key) {
  if (!m) return std::nan("");
  const auto c = m->counters.find(key);
  return c == m->counters.end() ? std::nan("") : c->second;
}

// PyTorch's rows of an attention table: each backend's time, or why it did not run.
void add_sdpa_rows(TextTable& table, const lab13_library::SdpaResults& sdpa,
                   const std::string& label, double cublas_gflops, double best_gflops) {
  for (const std::string& backend : lab13_library::kSdpaBackends) {
    const auto timing = sdpa.find(backend, label);
    if (!timing) continue;
    table.add_row({"sdpa_" + backend, TextTable::number(timing->ms, 3),
                   TextTable::number(timing->gflops / 1000.0, 1),
                   TextTable::number(100.0 * timing->gflops / cublas_gflops, 1),
                   TextTable::number(timing->gflops / best_gflops, 2), "-", "reference"});
  }
}

// Which PyTorch backends did not run on `label`, and why, one line each.
void print_sdpa_skips(std::ostream& out, const lab13_library::SdpaResults& sdpa,
                      const std::string& label) {
  if (const auto all = sdpa.skipped.find("all"); all != sdpa.skipped.end()) {
    out << "PyTorch's attention was not timed: " << all->second << "\n";
    return;
  }
  for (const std::string& backend : lab13_library::kSdpaBackends) {
    if (const auto why = sdpa.skipped.find(backend + "/" + label); why != sdpa.skipped.end())
      out << "sdpa_" << backend << " did not run: " << why->second << "\n";
  }
}

void print_tables(std::ostream& out, const Options& options, const Checked& checked,
                  const std::map<std::string, BenchmarkMedian>& medians,
                  const lab13_library::SdpaResults& sdpa) {
  if (!checked.softmax.empty()) {
    const std::string problem = softmax_problem(options);
    const auto copy = median(medians, "reference/cudaMemcpy/" + problem);
    TextTable table({{"variant", false},
                     {"ms", true},
                     {"GB/s", true},
                     {"% of copy", true},
                     {"error / bound", true},
                     {"check", false}});
    table.add_row({"cudaMemcpy", TextTable::number(copy ? copy->real_time_ms : std::nan(""), 3),
                   TextTable::number(counter(copy, "gbytes_per_s"), 0), "100.0", "-", "reference"});
    for (const Row& row : checked.softmax) {
      const auto m = median(medians, "lab13/" + row.name + "/" + problem);
      table.add_row(
          {row.name, TextTable::number(m ? m->real_time_ms : std::nan(""), 3),
           TextTable::number(counter(m, "gbytes_per_s"), 0),
           TextTable::number(100.0 * counter(m, "gbytes_per_s") / counter(copy, "gbytes_per_s"), 1),
           TextTable::number(row.worst_fraction, 2), row.check_text()});
    }
    out << "\nrow softmax, " << options.rows << " x " << options.columns
        << " FP32 (GB/s: one read and one write of the array)\n";
    table.print(out);
  }
  for (const AttentionProblem& problem : checked.attention) {
    const std::string label = problem.shape.label();
    const auto cublas = median(medians, "reference/cublas_attention/" + label);
    const double cublas_gflops = counter(cublas, "gflops");
    const auto best = sdpa.find("best", label);
    const double best_gflops = best ? best->gflops : std::nan("");
    TextTable table({{"variant", false},
                     {"ms", true},
                     {"TFLOP/s", true},
                     {"% of cuBLAS", true},
                     {"x SDPA best", true},
                     {"error / bound", true},
                     {"check", false}});
    table.add_row({"cublas_attention",
                   TextTable::number(cublas ? cublas->real_time_ms : std::nan(""), 3),
                   TextTable::number(cublas_gflops / 1000.0, 1), "100.0",
                   TextTable::number(cublas_gflops / best_gflops, 2), "-", "reference"});
    add_sdpa_rows(table, sdpa, label, cublas_gflops, best_gflops);
    for (const Row& row : problem.rows) {
      const auto m = median(medians, "lab13/" + row.name + "/" + label);
      const double gflops = counter(m, "gflops");
      table.add_row({row.name, TextTable::number(m ? m->real_time_ms : std::nan(""), 3),
                     TextTable::number(gflops / 1000.0, 1),
                     TextTable::number(100.0 * gflops / cublas_gflops, 1),
                     TextTable::number(gflops / best_gflops, 2),
                     TextTable::number(row.worst_fraction, 2), row.check_text()});
    }
    out << "\nattention " << label << " (BF16, "
        << TextTable::number(problem.shape.flops() * 1e-9, 1)
        << " GFLOP; sdpa_*: PyTorch's scaled_dot_product_attention"
        << (sdpa.torch_version.empty() ? "" : " " + sdpa.torch_version)
        << ", same GPU, after the lab's timings; x SDPA best: the rate over its fastest "
           "backend's)\n";
    table.print(out);
    print_sdpa_skips(out, sdpa, label);
  }
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
  register_flags(app, options);
  std::vector<std::string> benchmark_args = cudalabs::parse_flags_with_benchmark(app, argc, argv);
  if (options.list) {
    for (const auto& [name, summary] : all_variants()) std::cout << name << "\t" << summary << "\n";
    return cudalabs::kExitOk;
  }
  require_known(options.variants);
  if (options.shape.heads_total() > 65535) {
    throw cudalabs::FlagError("--batch/--heads: batch * heads = " +
                              std::to_string(options.shape.heads_total()) + " must be <= 65535");
  }
  const std::uint64_t seed = options.seed_text.empty()
                                 ? cudalabs::run_seed()
                                 : static_cast<std::uint64_t>(cudalabs::parse_integer_flag(
                                       "--seed", options.seed_text, 0, (1LL << 62)));
  std::ostream& out =
      cudalabs::benchmark_stdout_is_machine_readable(benchmark_args) ? std::cerr : std::cout;

  cudalabs::require_gpu();
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  {
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
    // Defaults shrink to this GPU, one line each; sizes given by flags are refused below instead.
    const cudalabs::DeviceMemory memory = cudalabs::device_memory();
    const auto shrink = [&](int& size, long long smallest, const std::string& flag,
                            const std::function<std::size_t(long long)>& bytes) {
      const long long fitting =
          cudalabs::halve_until_fits(size, smallest, memory.free_bytes, bytes);
      if (fitting == size) return;
      out << "size: the default " << flag << " " << size << " needs " << (bytes(size) >> 20)
          << " MiB, more than this GPU can spare (" << (memory.free_bytes >> 20) << " MiB free of "
          << (memory.total_bytes >> 20) << " MiB); running " << flag << " " << fitting << " ("
          << flag << " chooses)\n";
      size = static_cast<int>(fitting);
    };
    if (app.count("--rows") + app.count("--columns") == 0)
      shrink(options.rows, 1024, "--rows", softmax_bytes);
    if (app.count("--batch") + app.count("--heads") + app.count("--sequence") +
            app.count("--head-dim") ==
        0)
      shrink(options.shape.sequence, 256, "--sequence", attention_bytes);
    cudalabs::require_device_memory(
        std::max(softmax_bytes(options.rows), attention_bytes(options.shape.sequence)),
        "--rows/--columns/--batch/--heads/--sequence");
  }
  if (!options.results_dir.empty()) {
    std::filesystem::create_directories(options.results_dir);
    const std::string tag = options.results_tag.empty() ? "" : options.results_tag + "_";
    benchmark_args.push_back("--benchmark_out=" + options.results_dir + "/lab13_" + tag +
                             device.slug() + ".json");
    benchmark_args.push_back("--benchmark_out_format=json");
  }
  cudalabs::initialize_benchmark(benchmark_args);
  out << "lab13: softmax and attention\n"
      << "device: " << device.name << " (sm_" << device.major << device.minor << ", "
      << device.sm_count << " SMs, driver "
      << cudalabs::DeviceInfo::version_text(device.driver_version) << "), seed=" << seed << "\n";
  const AttentionShape probe{1, 1, 64, 128, false};
  const void* feature_kernels[] = {lab13::attention_variants()[1].describe(probe).kernel,
                                   lab13::attention_variants()[2].describe(probe).kernel};
  cudalabs::print_build_report(out, nullptr, kFeatures, feature_kernels);

  Checked checked = check_all(out, options, seed);
  if (options.verify_only) return checked.all_passed ? cudalabs::kExitOk : cudalabs::kExitFailed;

  cudalabs::add_benchmark_context(device, argc, argv, seed);
  TimingBuffers buffers;
  register_all(options, checked, seed, buffers);
  out << "timing: " << options.timing.repetitions << " repetitions of at least "
      << options.timing.min_time_s << " s each, CUDA-event times, medians\n";
  const std::map<std::string, BenchmarkMedian> medians =
      cudalabs::run_benchmarks(benchmark_args, out);
  lab13_library::SdpaResults sdpa;
  if (!checked.attention.empty()) {
    if (options.no_pytorch) {
      sdpa.skipped["all"] = "--no-pytorch";
    } else {
      std::vector<std::string> labels;
      for (const AttentionProblem& problem : checked.attention)
        labels.push_back(problem.shape.label());
      out << "timing: PyTorch's attention backends (tools/pytorch_attention.py bench)\n";
      ::setenv("CUDALABS_GIT_COMMIT", cudalabs::built_from_commit().c_str(), 0);
      sdpa = lab13_library::time_pytorch_sdpa(labels, std::max(options.timing.repetitions, 10),
                                              options.results_dir);
      if (!sdpa.record.empty()) out << "pytorch: record " << sdpa.record << "\n";
    }
  }
  print_tables(out, options, checked, medians, sdpa);
  return checked.all_passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
