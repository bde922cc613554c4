#include "common/gemm_lab_driver.h"

#include "common/benchmark_support.h"
#include "common/build_report.h"
#include "common/cli.h"
#include "common/cublas_gemm.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_fill.h"
#include "common/device_info.h"
#include "common/drawn_reference.h"
#include "common/event_timer.h"
#include "common/gemm_check.h"
#include "common/gemm_compare.h"
#include "common/gemm_device_compare.h"
#include "common/launch_report.h"
#include "common/random_fill.h"
#include "common/reference_gemm.h"
#include "common/text_table.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <tuple>
#include <type_traits>

namespace cudalabs {

namespace {

struct GemmLabOptions {
  int m = 4096, n = 4096, k = 4096;
  float alpha = 1.0f;
  float beta = 0.0f;
  float verify_beta = 0.5f;
  std::vector<std::string> variants;
  TimingOptions timing;
  bool verify_only = false;
  bool list = false;
  bool launch_info = false;
  std::string results_dir;
  std::string results_tag;
  std::string shapes_text;
  std::string seed_text;
};

constexpr long long kMaxDimension = 1 << 20;

void register_flags(CLI::App& app, GemmLabOptions& options) {
  app.add_option_function<std::string>(
         "--size",
         [&options](const std::string& text) {
           const int size = static_cast<int>(parse_integer_flag("--size", text, 1, kMaxDimension));
           options.m = options.n = options.k = size;
         },
         "Sets M = N = K at once (--m, --n, --k given too take precedence)")
      ->type_name(kIntegerValueName);
  add_integer_flag(app, "--m", options.m, 1, kMaxDimension, "Rows of A and C");
  add_integer_flag(app, "--n", options.n, 1, kMaxDimension, "Columns of B and C");
  add_integer_flag(app, "--k", options.k, 1, kMaxDimension, "Columns of A and rows of B");
  app.add_option("--shapes", options.shapes_text,
                 "Several problems instead of --m/--n/--k: comma-separated N (a cube) or MxNxK, "
                 "each optionally with a layout: _ld+P (lda, ldb, ldc padded by P floats), _lda+P, "
                 "_ldb+P, _ldc+P, _off+O (matrices O floats past an aligned start), e.g. "
                 "256,1024,65536x64x3200,4095x4097x4099_ld+1")
      ->type_name("SHAPE,...");
  add_number_flag(app, "--alpha", options.alpha, -1e6, 1e6, "Scale of A*B (timing and checks)");
  add_number_flag(app, "--beta", options.beta, -1e6, 1e6, "Scale of the old C while timing");
  add_number_flag(
      app, "--verify-beta", options.verify_beta, -1e6, 1e6,
      "beta of the value check (the write check always uses beta = 0 on a NaN-poisoned C)");
  app.add_option("--variant", options.variants, "Variant to run (repeatable; default: all)")
      ->type_name("NAME");
  add_integer_flag(app, "--repetitions", options.timing.repetitions, 1, 1000,
                   "Timed repetitions per variant; tables show their median");
  add_number_flag(app, "--min-time", options.timing.min_time_s, 0.0, 60.0,
                  "Minimum timed seconds per repetition");
  add_integer_flag(app, "--warmups", options.timing.warmups, 0, 1000,
                   "Untimed launches before each repetition");
  app.add_option("--seed", options.seed_text,
                 "Seed of the random inputs (default: CUDALABS_SEED or fresh)")
      ->type_name("SEED");
  app.add_flag("--verify-only", options.verify_only, "Check every variant, time nothing");
  app.add_flag("--list", options.list, "List the variants and exit");
  app.add_flag(
      "--launch-info", options.launch_info,
      "Print each variant's grid, block, registers, shared memory and theoretical occupancy");
  app.add_option("--results-dir", options.results_dir,
                 "Write the Google Benchmark JSON to DIR/<lab>_<device>.json "
                 "(docs/pages/architecture.md, 'Recorded results')")
      ->type_name("DIR");
  app.add_option("--results-tag", options.results_tag,
                 "Name the JSON DIR/<lab>_<TAG>_<device>.json instead")
      ->type_name("TAG");
}

// Several copies of the inputs when one copy fits in L2, so that timed runs read from DRAM as a
// real workload would rather than from a warm cache. Each matrix sits in its allocation as the
// problem's layout says (padded rows, offset start) and is drawn on the GPU (device_fill.h: the
// values fill_uniform draws, so the CPU can compute any element it checks). BF16 inputs (lab 11)
// keep FP32 copies of A and B too, for cuBLAS in TF32.
template <class Input>
struct TimingInputs {
  static constexpr bool kBf16 = std::is_same_v<Input, __nv_bfloat16>;  // FP32 copies for TF32
  struct Set {
    DeviceBuffer<Input> a, b;
    DeviceBuffer<float> c;
    DeviceBuffer<float> float_a, float_b;  // BF16 labs: the same values in FP32
  };
  std::vector<Set> sets;
  GemmProblem problem;

  TimingInputs(const GemmProblem& p, std::size_t l2_bytes, std::uint64_t seed) : problem(p) {
    const std::size_t set_bytes =
        (a_count() + b_count()) * sizeof(Input) + c_count() * sizeof(float);
    const std::size_t copies =
        std::clamp<std::size_t>((2 * l2_bytes + set_bytes - 1) / set_bytes, 1, 8);
    for (std::size_t i = 0; i < copies; ++i) {
      Set set{DeviceBuffer<Input>(a_count()),
              DeviceBuffer<Input>(b_count()),
              DeviceBuffer<float>(c_count()),
              {},
              {}};
      if constexpr (kBf16) {
        set.float_a = DeviceBuffer<float>(a_count());
        set.float_b = DeviceBuffer<float>(b_count());
      }
      draw(set, derive_seed(seed, "time A " + std::to_string(i)),
           derive_seed(seed, "time B " + std::to_string(i)),
           derive_seed(seed, "time C " + std::to_string(i)));
      sets.push_back(std::move(set));
    }
  }

  // Whole allocations, the offset included: element (i, j) of A is draw offset + i * lda + j.
  std::size_t offset() const { return static_cast<std::size_t>(problem.layout.pointer_offset); }
  std::size_t a_count() const {
    return static_cast<std::size_t>(problem.shape.m) * problem.lda() + offset();
  }
  std::size_t b_count() const {
    return static_cast<std::size_t>(problem.shape.k) * problem.ldb() + offset();
  }
  std::size_t c_count() const {
    return static_cast<std::size_t>(problem.shape.m) * problem.ldc() + offset();
  }

  // Fresh values in every matrix of `set`, drawn on the GPU.
  void draw(Set& set, std::uint64_t seed_a, std::uint64_t seed_b, std::uint64_t seed_c) const {
    fill_uniform_device(set.a.data(), set.a.size(), seed_a);
    fill_uniform_device(set.b.data(), set.b.size(), seed_b);
    fill_uniform_device(set.c.data(), set.c.size(), seed_c);
    if constexpr (kBf16) {
      fill_uniform_device(set.float_a.data(), set.float_a.size(), seed_a);
      fill_uniform_device(set.float_b.data(), set.float_b.size(), seed_b);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  GemmArgsOf<Input> args(int run, float alpha, float beta) {
    Set& set = sets[static_cast<std::size_t>(run) % sets.size()];
    return args_of(set.a.data(), set.b.data(), set.c.data(), alpha, beta);
  }

  // The FP32 copies (BF16 labs), for cuBLAS in TF32.
  GemmArgs float_args(int run, float alpha, float beta) {
    Set& set = sets[static_cast<std::size_t>(run) % sets.size()];
    return args_of(set.float_a.data(), set.float_b.data(), set.c.data(), alpha, beta);
  }

  template <class Element>
  GemmArgsOf<Element> args_of(const Element* a, const Element* b, float* c, float alpha,
                              float beta) const {
    const GemmShape& s = problem.shape;
    const int offset = problem.layout.pointer_offset;
    return GemmArgsOf<Element>{s.m,        s.n,           s.k,          alpha,
                               a + offset, problem.lda(), b + offset,   problem.ldb(),
                               beta,       c + offset,    problem.ldc()};
  }
};

struct VariantRow {
  std::string name;
  std::optional<GemmCheckReport> check;         // empty for cuBLAS
  std::optional<BenchmarkMedian> timing;        // empty when not timed
  std::optional<GemmCheckReport> after_timing;  // the check again, on fresh inputs, after timing
  std::string skipped;  // why the variant cannot run on this GPU (then nothing else is set)
  double rounding_cost = std::nan("");  // BF16: rel. L2 against the unrounded FP32 inputs
  std::string reference_label;  // a cuBLAS row's benchmark name prefix ("cublas", "cublas_tf32")
};

std::uint64_t choose_seed(const std::string& text) {
  if (text.empty()) return run_seed();
  return static_cast<std::uint64_t>(
      parse_integer_flag("--seed", text, 0, std::numeric_limits<long long>::max()));
}

std::string check_cell(const VariantRow& row) {
  if (!row.skipped.empty()) return "skipped";
  if (row.after_timing && row.after_timing->outcome != CheckOutcome::kPassed)
    return "FAIL after timing";
  return row.check ? outcome_text(row.check->outcome) : "reference";
}

std::string scientific(double value) {
  if (std::isnan(value)) return "-";
  std::ostringstream text;
  text.precision(2);
  text << std::scientific << value;
  return text.str();
}

// BF16 labs add a column: each result against the unrounded FP32 inputs (what BF16 costs).
void print_table(std::ostream& out, const std::vector<VariantRow>& rows, double cublas_gflops,
                 bool bf16) {
  std::vector<TextTable::Column> columns{{"variant", false},
                                         {"ms", true},
                                         {"GFLOP/s", true},
                                         {"% cuBLAS", true},
                                         {"rel. error", true}};
  if (bf16) columns.push_back({"vs FP32 inputs", true});
  columns.push_back({"check", false});
  TextTable table(columns);
  for (const VariantRow& row : rows) {
    const double ms = row.timing ? row.timing->real_time_ms : std::nan("");
    double gflops = std::nan("");
    if (row.timing && row.timing->counters.count("gflops"))
      gflops = row.timing->counters.at("gflops");
    const double percent = cublas_gflops > 0.0 ? 100.0 * gflops / cublas_gflops : std::nan("");
    std::string error = "-";
    if (row.check && row.check->outcome != CheckOutcome::kNotImplemented)
      error = scientific(row.check->worst_relative_l2());
    std::vector<std::string> cells{row.name, TextTable::number(ms, 3), TextTable::number(gflops, 0),
                                   TextTable::number(percent, 1), error};
    if (bf16) cells.push_back(scientific(row.rounding_cost));
    cells.push_back(check_cell(row));
    table.add_row(cells);
  }
  table.print(out);
}

}  // namespace

namespace {

// Verification and timing of every selected variant at one shape.
struct ShapeRun {
  GemmProblem problem;
  std::vector<VariantRow> rows;  // the cuBLAS rows first
  bool all_passed = true;
};

std::string shape_flags(const GemmProblem& problem) {
  if (problem.layout.suffix().empty()) {
    return "--m " + std::to_string(problem.shape.m) + " --n " + std::to_string(problem.shape.n) +
           " --k " + std::to_string(problem.shape.k);
  }
  return "--shapes " + problem.label();
}

// The drivers check many problems, large ones among them: beyond about 0.1 s of CPU reference
// (2^26 multiply-adds) the inputs are drawn on the GPU and C is compared there with cuBLAS, the
// CPU checking sampled elements (gemm_check.h). The grading tests keep the default limit.
GemmCheckOptions driver_check_options() {
  GemmCheckOptions options;
  options.full_reference_limit = std::int64_t{1} << 26;
  return options;
}

GemmCase case_of(const GemmProblem& problem, float alpha, float beta) {
  return GemmCase{problem.shape, alpha, beta, problem.layout};
}

}  // namespace

namespace {

// The problems the flags name, checked.
std::vector<GemmProblem> chosen_problems(const GemmLabOptions& options) {
  std::vector<GemmProblem> problems =
      options.shapes_text.empty()
          ? std::vector<GemmProblem>{{{options.m, options.n, options.k}, {}}}
          : parse_gemm_problems("--shapes", options.shapes_text);
  for (const GemmProblem& problem : problems) {
    validate_gemm_problem(problem, options.shapes_text.empty() ? "--m/--n/--k" : "--shapes");
  }
  return problems;
}

// Inputs, references and cuBLAS's scratch for the check, plus the timing copies: refused before
// anything is allocated if the largest shape cannot fit.
void require_room(const std::vector<GemmProblem>& problems) {
  for (const GemmProblem& problem : problems) {
    const GemmShape& s = problem.shape;
    const std::size_t matrix_bytes = (static_cast<std::size_t>(s.m) * problem.lda() +
                                      static_cast<std::size_t>(s.k) * problem.ldb() +
                                      static_cast<std::size_t>(s.m) * problem.ldc()) *
                                     sizeof(float);
    // A large problem's check holds A, B, C, the random C, cuBLAS's product and its magnitudes, and
    // |A| and |B| while it builds them: at most four times A, B and C in FP32.
    require_device_memory(4 * matrix_bytes, shape_flags(problem));
  }
}

void print_header(std::ostream& out, const std::string& id, const std::string& title,
                  const DeviceInfo& device, const GemmLabOptions& options, std::uint64_t seed) {
  out << id << ": " << title << "\n"
      << "device: " << device.name << " (sm_" << device.major << device.minor << ", "
      << device.sm_count << " SMs, driver " << DeviceInfo::version_text(device.driver_version)
      << ")\n"
      << "alpha=" << options.alpha << ", beta=" << options.beta << ", seed=" << seed << "\n";
}

// The cuBLAS rows of a table: SGEMM for FP32 labs; BF16 and TF32 tensor cores for BF16 labs (the
// first is the one "% cuBLAS" compares with).
template <class Input>
std::vector<VariantRow> reference_rows() {
  const auto row = [](const char* name) {
    VariantRow r;
    r.name = r.reference_label = name;
    return r;
  };
  if constexpr (std::is_same_v<Input, float>) {
    return {row("cublas")};
  } else if constexpr (std::is_same_v<Input, __half>) {
    return {row("cublas_fp16")};
  } else {
    return {row("cublas_bf16"), row("cublas_tf32")};
  }
}

template <class Input>
const GemmVariantOf<Input>& variant_named(const std::vector<const GemmVariantOf<Input>*>& selected,
                                          const std::string& name) {
  return **std::find_if(selected.begin(), selected.end(),
                        [&](const GemmVariantOf<Input>* v) { return name == v->name; });
}

// Every selected variant at every shape against the reference, with fresh inputs per shape.
template <class Input>
std::vector<ShapeRun> verify_shapes(std::ostream& out, const std::vector<GemmProblem>& problems,
                                    const std::vector<const GemmVariantOf<Input>*>& selected,
                                    const GemmLabOptions& options, std::uint64_t seed) {
  std::vector<ShapeRun> runs;
  for (const GemmProblem& problem : problems) {
    ShapeRun run{problem, reference_rows<Input>(), true};
    const GemmCase verify_case = case_of(problem, options.alpha, options.verify_beta);
    BasicGemmVerifier<Input> verifier(verify_case, derive_seed(seed, "verify " + problem.label()),
                                      driver_check_options());
    out << "check: " << verify_case.label() << " against the " << verifier.reference_description()
        << "\n";
    for (const GemmVariantOf<Input>* variant : selected) {
      VariantRow row;
      row.name = variant->name;
      row.skipped = unavailable_reason(*variant);
      if (!row.skipped.empty()) {
        out << "  " << variant->name << ": skipped: " << row.skipped << "\n";
        run.rows.push_back(std::move(row));
        continue;
      }
      GemmCheckReport report = verifier.check(variant->launch);
      out << "  " << variant->name << ": " << report.message;
      if (!std::isnan(verifier.rounding_cost()) &&
          report.outcome != CheckOutcome::kNotImplemented) {
        row.rounding_cost = verifier.rounding_cost();
        out << "; against the unrounded FP32 inputs: rel L2 " << scientific(row.rounding_cost);
      }
      out << "\n";
      run.all_passed = run.all_passed && report.outcome == CheckOutcome::kPassed;
      row.check = std::move(report);
      run.rows.push_back(std::move(row));
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

// What each variant's launch asks of the SM, keyed by "variant/shape"; printed for lab 04 and with
// --launch-info, recorded always.
template <class Input>
std::map<std::string, LaunchReport> report_launches(
    std::ostream& out, const GemmLabOf<Input>& lab, const std::vector<ShapeRun>& runs,
    const std::vector<const GemmVariantOf<Input>*>& selected, const OccupancyLimits& limits,
    bool print) {
  std::map<std::string, LaunchReport> launches;
  for (const ShapeRun& run : runs) {
    std::vector<LaunchReport> ordered;
    for (const GemmVariantOf<Input>* variant : selected) {
      if (!unavailable_reason(*variant).empty()) continue;
      LaunchReport report =
          report_launch(variant->name, variant->describe(run.problem.shape), limits);
      launches[std::string(variant->name) + "/" + run.problem.label()] = report;
      ordered.push_back(report);
    }
    if (lab.show_launch_info || print) {
      out << "\n" << run.problem.label() << " ";
      print_launch_table(out, ordered);
    }
  }
  return launches;
}

// What the timed benchmarks use while Google Benchmark runs them: it must outlive run_benchmarks.
template <class Input>
struct TimingSession {
  CublasHandle cublas;
  std::map<std::string, std::vector<double>>
      cublas_gflops;  // per problem, each repetition's, for pct_cublas
  std::vector<std::unique_ptr<TimingInputs<Input>>> inputs;
};

// One cuBLAS reference launch: SGEMM, or BF16 / TF32 on the tensor cores for BF16 labs.
template <class Input>
void launch_reference(TimingSession<Input>& session, TimingInputs<Input>& in,
                      const std::string& label, int run, float alpha, float beta,
                      cudaStream_t stream) {
  if constexpr (std::is_same_v<Input, float>) {
    (void)label;
    cublas_gemm_row_major(session.cublas, in.args(run, alpha, beta), stream);
  } else if constexpr (std::is_same_v<Input, __half>) {
    (void)label;
    cublas_gemm_fp16_row_major(session.cublas, in.args(run, alpha, beta), stream);
  } else if (label == "cublas_tf32") {
    cublas_gemm_tf32_row_major(session.cublas, in.float_args(run, alpha, beta), stream);
  } else {
    cublas_gemm_bf16_row_major(session.cublas, in.args(run, alpha, beta), stream);
  }
}

// Registers cuBLAS and each passing variant at every shape, cuBLAS first so that a variant's
// pct_cublas is against the cuBLAS run just before it.
template <class Input>
void register_benchmarks(TimingSession<Input>& session, const GemmLabOf<Input>& lab,
                         const std::vector<ShapeRun>& runs,
                         const std::vector<const GemmVariantOf<Input>*>& selected,
                         const std::map<std::string, LaunchReport>& launches,
                         const GemmLabOptions& options, const DeviceInfo& device,
                         std::uint64_t seed) {
  const float alpha = options.alpha, beta = options.beta;
  const TimingOptions timing = options.timing;
  for (const ShapeRun& run : runs) {
    session.inputs.push_back(std::make_unique<TimingInputs<Input>>(
        run.problem, device.l2_bytes, derive_seed(seed, "timing " + run.problem.label())));
    TimingInputs<Input>& in = *session.inputs.back();
    const std::string problem = run.problem.label();
    const double flops = run.problem.shape.flops();
    for (const VariantRow& row : run.rows) {
      if (row.reference_label.empty()) continue;
      const std::string label = row.reference_label;
      const bool primary = label == run.rows.front().reference_label;
      register_timed_benchmark(
          label + "/" + problem,
          [&session, &in, alpha, beta, timing, problem, flops, label,
           primary](benchmark::State& state) {
            time_iterations(
                state,
                [&](cudaStream_t stream, int r) {
                  launch_reference(session, in, label, r, alpha, beta, stream);
                },
                flops, 0.0, timing.warmups);
            if (primary) session.cublas_gflops[problem].push_back(state.counters["gflops"]);
          },
          timing);
    }
    for (const VariantRow& row : run.rows) {
      if (!row.check || row.check->outcome != CheckOutcome::kPassed) continue;
      const GemmVariantOf<Input>* variant = &variant_named(selected, row.name);
      const LaunchReport launch = launches.at(std::string(variant->name) + "/" + problem);
      register_timed_benchmark(
          lab.id + "/" + variant->name + "/" + problem,
          [&session, &in, alpha, beta, timing, variant, problem, flops,
           launch](benchmark::State& state) {
            time_iterations(
                state,
                [&](cudaStream_t stream, int r) {
                  variant->launch(in.args(r, alpha, beta), stream);
                },
                flops, 0.0, timing.warmups);
            const double cublas_gflops = median(session.cublas_gflops[problem]);
            if (cublas_gflops > 0.0)
              state.counters["pct_cublas"] = 100.0 * state.counters["gflops"] / cublas_gflops;
            state.counters["registers"] = launch.registers_per_thread;
            state.counters["occupancy"] = 100.0 * launch.occupancy.occupancy;
          },
          timing);
    }
  }
}

// The first timed buffer set refilled with fresh values and launched on once more exactly as timed
// (the timed alpha and beta), checked on sampled elements against the CPU, which draws the values
// at the samples' rows and columns as the GPU drew them. A kernel that skipped work it had
// "already done" for these pointers during the timed runs leaves the old result here; new buffers
// would not catch it.
template <class Input>
GemmCheckReport check_in_timed_buffers(TimingInputs<Input>& in, const GemmVariantOf<Input>& variant,
                                       float alpha, float beta, std::uint64_t seed) {
  typename TimingInputs<Input>::Set& set = in.sets.front();
  const std::uint64_t seed_a = derive_seed(seed, "refill A"),
                      seed_b = derive_seed(seed, "refill B"),
                      seed_c = derive_seed(seed, "refill C");
  in.draw(set, seed_a, seed_b, seed_c);
  GemmCheckReport report;
  try {
    variant.launch(in.args(0, alpha, beta), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  } catch (const std::exception& error) {
    report.message = std::string("the launch failed: ") + error.what();
    return report;
  }
  const GemmProblem& p = in.problem;
  const GemmShape& s = p.shape;
  const std::int64_t offset = p.layout.pointer_offset;
  // The reference multiplies the values the GPU reads (BF16 or FP16 rounded; float as drawn).
  float (*rounding)(float) = std::is_same_v<Input, float> ? nullptr : &round_to_input<Input>;
  const ReferenceValues reference = drawn_gemm_reference(
      s, alpha, DrawnMatrix{seed_a, offset, p.lda(), rounding},
      DrawnMatrix{seed_b, offset, p.ldb(), rounding}, beta,
      DrawnMatrix{seed_c, offset, p.ldc(), nullptr}, sample_positions(s.m, s.n, 512, seed));
  const std::vector<float> got =
      gather_gemm_elements(set.c.data() + offset, s.n, p.ldc(), reference.positions);
  report.value_check = compare_gemm_values(got, reference, s.k, input_tolerance<Input>());
  report.write_check = report.value_check;
  report.outcome = report.value_check.passed() ? CheckOutcome::kPassed : CheckOutcome::kFailed;
  report.message = "timed buffers refilled: " + report.value_check.describe();
  return report;
}

// Every timed variant checked again after timing: on fresh inputs in new buffers with beta != 0
// (the whole protocol), and on fresh inputs in the very buffers it was timed on, launched as timed.
template <class Input>
bool recheck_after_timing(std::ostream& out, std::vector<ShapeRun>& runs,
                          TimingSession<Input>& session,
                          const std::vector<const GemmVariantOf<Input>*>& selected,
                          const GemmLabOptions& options, std::uint64_t seed) {
  bool all_right = true;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ShapeRun& run = runs[i];
    const float beta = options.verify_beta != 0.0f ? options.verify_beta : 0.5f;
    BasicGemmVerifier<Input> verifier(case_of(run.problem, options.alpha, beta),
                                      derive_seed(seed, "after timing " + run.problem.label()),
                                      driver_check_options());
    for (VariantRow& row : run.rows) {
      if (!row.check || row.check->outcome != CheckOutcome::kPassed) continue;
      const GemmVariantOf<Input>& variant = variant_named(selected, row.name);
      row.after_timing = verifier.check(variant.launch);
      if (row.after_timing->outcome == CheckOutcome::kPassed) {
        row.after_timing = check_in_timed_buffers(
            *session.inputs[i], variant, options.alpha, options.beta,
            derive_seed(seed, "refill " + row.name + " " + run.problem.label()));
      }
      if (row.after_timing->outcome != CheckOutcome::kPassed) {
        out << "  " << row.name << " after timing, fresh inputs: " << row.after_timing->message
            << "\n";
        all_right = false;
      }
    }
  }
  return all_right;
}

// One table per shape: the medians next to the checks, % of cuBLAS from the same run.
template <class Input>
void print_results(std::ostream& out, const GemmLabOf<Input>& lab, std::vector<ShapeRun>& runs,
                   const std::map<std::string, BenchmarkMedian>& medians) {
  for (ShapeRun& run : runs) {
    const std::string problem = run.problem.label();
    for (VariantRow& row : run.rows) {
      const std::string name = row.reference_label.empty() ? lab.id + "/" + row.name + "/" + problem
                                                           : row.reference_label + "/" + problem;
      if (auto it = medians.find(name); it != medians.end()) row.timing = it->second;
    }
    const BenchmarkMedian* cublas = run.rows.front().timing ? &*run.rows.front().timing : nullptr;
    const double cublas_gflops =
        cublas && cublas->counters.count("gflops") ? cublas->counters.at("gflops") : std::nan("");
    out << "\n" << problem << "\n";
    print_table(out, run.rows, cublas_gflops, !std::is_same_v<Input, float>);
  }
}

}  // namespace

namespace {

// One precision of a lab (lab 11 has two: the BF16 ladder and the FP16 rungs): its variants as
// selected, verified, described and timed.
template <class Input>
struct PrecisionPass {
  const GemmLabOf<Input>* lab = nullptr;
  std::vector<const GemmVariantOf<Input>*> selected;
  std::vector<ShapeRun> runs;
  std::map<std::string, LaunchReport> launches;
  std::unique_ptr<TimingSession<Input>> session;
};

// --variant across every precision's list: each name must be in one of them.
template <class... Inputs>
void select_across(const std::vector<std::string>& names, PrecisionPass<Inputs>&... passes) {
  std::vector<std::string> known;
  (known.push_back(variant_names(passes.lab->variants)), ...);
  for (const std::string& name : names) {
    const bool found = ((std::any_of(passes.lab->variants.begin(), passes.lab->variants.end(),
                                     [&](const auto& v) { return name == v.name; })) ||
                        ...);
    if (!found) {
      std::string list;
      for (const std::string& part : known) list += (list.empty() ? "" : ", ") + part;
      throw std::invalid_argument("--variant: unknown variant '" + name + "' (known: " + list +
                                  ")");
    }
  }
  const auto select = [&](auto& pass) {
    if (names.empty()) {
      for (const auto& variant : pass.lab->variants) pass.selected.push_back(&variant);
      return;
    }
    for (const std::string& name : names)
      for (const auto& variant : pass.lab->variants)
        if (name == variant.name) pass.selected.push_back(&variant);
  };
  (select(passes), ...);
}

// The kernel a variant launches for a small problem, or null when it cannot say (it needs
// something this GPU lacks).
template <class Input>
const void* kernel_of(const GemmVariantOf<Input>& variant) {
  try {
    return variant.describe(GemmShape{256, 256, 256}).kernel;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// The driver's first lines after the header: JIT-compiled code, features the build lacks here.
template <class... Inputs>
void report_build(std::ostream& out, std::span<const BuildFeature> features,
                  const PrecisionPass<Inputs>&... passes) {
  const void* lab_kernel = nullptr;
  const auto first_kernel = [&](const auto& pass) {
    for (const auto& variant : pass.lab->variants) {
      if (lab_kernel == nullptr) lab_kernel = kernel_of(variant);
    }
  };
  (first_kernel(passes), ...);
  std::vector<const void*> feature_kernels;
  for (const BuildFeature& feature : features) {
    const void* kernel = nullptr;
    std::istringstream users(feature.users);
    std::string user;
    while (kernel == nullptr && users >> user) {
      const auto find = [&](const auto& pass) {
        for (const auto& variant : pass.lab->variants)
          if (kernel == nullptr && user == variant.name) kernel = kernel_of(variant);
      };
      (find(passes), ...);
    }
    feature_kernels.push_back(kernel);
  }
  print_build_report(out, lab_kernel, features, feature_kernels);
}

// The default problem, halved until its matrices (three times over: inputs, references, timing
// copies) fit in the GPU's free memory, with one line saying so. Sizes given by flags are kept and
// refused later by require_room when they do not fit.
void shrink_default_to_fit(std::ostream& out, GemmLabOptions& options) {
  const DeviceMemory memory = device_memory();
  const auto need = [](long long size) {
    return 3 * 3 * static_cast<std::size_t>(size) * static_cast<std::size_t>(size) * sizeof(float);
  };
  const long long size = halve_until_fits(options.m, 256, memory.free_bytes, need);
  if (size == options.m) return;
  out << "size: the default " << options.m << " x " << options.n << " x " << options.k
      << " does not fit in this GPU's free memory (" << (memory.free_bytes >> 20) << " MiB of "
      << (memory.total_bytes >> 20) << " MiB); running " << size << " x " << size << " x " << size
      << " (--size chooses)\n";
  options.m = options.n = options.k = static_cast<int>(size);
}

// The help's first line: "Lab 01: naive GEMM" (the program names itself in the usage line).
std::string lab_title(const std::string& id, const std::string& title) {
  const bool numbered = id.rfind("lab", 0) == 0 && id.size() > 3;
  return (numbered ? "Lab " + id.substr(3) : id) + ": " + title;
}

template <class... Inputs>
int run_gemm_lab(int argc, char** argv, const std::string& id, const std::string& title,
                 std::span<const BuildFeature> features, const GemmLabOf<Inputs>&... labs) {
  constexpr bool kReduced = (!std::is_same_v<Inputs, float> || ...);
  return guarded_main(argc, argv, [&]() -> int {
    // ---- Parse ----
    GemmLabOptions options;
    CLI::App app{lab_title(id, title) +
                 ". Verifies every variant against the CPU reference, then times it against "
                 "cuBLAS."};
    register_flags(app, options);
    std::vector<std::string> benchmark_args = parse_flags_with_benchmark(app, argc, argv);
    if (options.list) {
      const auto list = [](const auto& lab) {
        for (const auto& variant : lab.variants)
          std::cout << variant.name << "\t" << variant.summary << "\n";
      };
      (list(labs), ...);
      return kExitOk;
    }
    std::tuple<PrecisionPass<Inputs>...> passes{PrecisionPass<Inputs>{&labs, {}, {}, {}, {}}...};
    std::apply([&](auto&... p) { select_across(options.variants, p...); }, passes);
    const bool sizes_given = app.count("--size") + app.count("--m") + app.count("--n") +
                                 app.count("--k") + app.count("--shapes") >
                             0;
    const std::uint64_t seed = choose_seed(options.seed_text);
    std::ostream& out =
        benchmark_stdout_is_machine_readable(benchmark_args) ? std::cerr : std::cout;
    chosen_problems(options);  // bad sizes are bad input, before the device is asked anything

    // ---- Check the device and the sizes ----
    require_gpu();
    const DeviceInfo device = current_device_info();
    if (!options.results_dir.empty()) {
      std::filesystem::create_directories(options.results_dir);
      const std::string tag = options.results_tag.empty() ? "" : options.results_tag + "_";
      benchmark_args.push_back("--benchmark_out=" + options.results_dir + "/" + id + "_" + tag +
                               device.slug() + ".json");
      benchmark_args.push_back("--benchmark_out_format=json");
    }
    initialize_benchmark(benchmark_args);
    print_header(out, id, title, device, options, seed);
    std::apply([&](auto&... p) { report_build(out, features, p...); }, passes);
    if (!sizes_given) shrink_default_to_fit(out, options);
    const std::vector<GemmProblem> problems = chosen_problems(options);
    require_room(problems);

    // ---- Verify ----
    bool all_passed = true;
    // A pass that --variant left empty is not run: its cuBLAS rows would be timed for nothing.
    const auto verify = [&](auto& pass) {
      if (pass.selected.empty()) return;
      pass.runs = verify_shapes(out, problems, pass.selected, options, seed);
      for (const ShapeRun& run : pass.runs) all_passed = all_passed && run.all_passed;
      pass.launches = report_launches(out, *pass.lab, pass.runs, pass.selected,
                                      OccupancyLimits::for_device(device), options.launch_info);
    };
    std::apply([&](auto&... p) { (verify(p), ...); }, passes);
    if (options.verify_only) {
      const auto print = [&](auto& pass) {
        for (const ShapeRun& run : pass.runs) {
          out << "\n" << run.problem.label() << "\n";
          print_table(out, run.rows, std::nan(""), kReduced);
        }
      };
      std::apply([&](auto&... p) { (print(p), ...); }, passes);
      return all_passed ? kExitOk : kExitFailed;
    }

    // ---- Time, then report ----
    add_benchmark_context(device, argc, argv, seed);
    const auto register_pass = [&]<class Input>(PrecisionPass<Input>& pass) {
      if (pass.selected.empty()) return;
      pass.session = std::make_unique<TimingSession<Input>>();
      register_benchmarks(*pass.session, *pass.lab, pass.runs, pass.selected, pass.launches,
                          options, device, seed);
    };
    std::apply([&](auto&... p) { (register_pass(p), ...); }, passes);
    out << "timing: " << options.timing.repetitions << " repetitions of at least "
        << options.timing.min_time_s
        << " s each, CUDA-event times, medians; input copies rotated when one fits in L2\n";
    const std::map<std::string, BenchmarkMedian> medians = run_benchmarks(benchmark_args, out);
    bool still_right = true;
    const auto finish = [&](auto& pass) {
      if (pass.selected.empty()) return;
      still_right =
          recheck_after_timing(out, pass.runs, *pass.session, pass.selected, options, seed) &&
          still_right;
      print_results(out, *pass.lab, pass.runs, medians);
    };
    std::apply([&](auto&... p) { (finish(p), ...); }, passes);
    return all_passed && still_right ? kExitOk : kExitFailed;
  });
}

}  // namespace

int gemm_lab_main(const GemmLab& lab, int argc, char** argv) {
  return run_gemm_lab(argc, argv, lab.id, lab.title, lab.features, lab);
}

int gemm_lab_main(const GemmLabOf<__nv_bfloat16>& lab, int argc, char** argv) {
  return run_gemm_lab(argc, argv, lab.id, lab.title, lab.features, lab);
}

int gemm_lab_main(const TensorCoreLab& lab, int argc, char** argv) {
  const GemmLabOf<__nv_bfloat16> bf16{lab.id, lab.title, lab.bf16_variants, false, {}};
  const GemmLabOf<__half> fp16{lab.id, lab.title, lab.fp16_variants, false, {}};
  return run_gemm_lab(argc, argv, lab.id, lab.title, lab.features, bf16, fp16);
}

}  // namespace cudalabs
