#include "attention_runs.h"

#include "attention_dump.h"
#include "common/cuda_check.h"
#include "common/text_table.h"

#include <cmath>
#include <optional>
#include <utility>

namespace lab13 {

namespace {

using cudalabs::CheckOutcome;
using cudalabs::TextTable;

// cuBLAS's attention on `verifier`'s problem, checked at the sampled rows, then the yardstick that
// every element of every rung is compared with.
void check_cublas(std::ostream& out, AttentionVerifier& verifier, const AttentionShape& shape) {
  lab13_library::CublasAttention cublas(shape);
  cudalabs::DeviceBuffer<__nv_bfloat16> output(shape.elements());
  cublas.run(verifier.q(), verifier.k(), verifier.v(), output.data(), verifier.scale(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> host = output.to_host();
  const CheckReport report = verifier.check_output(host, "cublas_attention");
  out << "  " << report.message << "\n";
  if (report.outcome == CheckOutcome::kPassed)
    verifier.compare_everything_with(std::move(host), "cublas_attention");
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

}  // namespace

AttentionProblem check_attention(cudalabs::LabDriver& driver, const AttentionShape& shape,
                                 const std::string& dump_dir, bool& all_passed) {
  std::ostream& out = driver.out();
  out << "check: attention " << shape.label()
      << " (BF16; the CPU reference in double at sampled rows, every element against cuBLAS)\n";
  auto timed = std::make_unique<AttentionVerifier>(
      shape, driver.seed_for("attention " + shape.label()), true);
  check_cublas(out, *timed, shape);
  const AttentionShape odd{1, 3, 1000, shape.head_dim, shape.causal};  // every row against the CPU
  AttentionVerifier odd_verifier(odd, driver.seed_for("attention odd"), false);
  std::optional<AttentionDump> dump;
  if (!dump_dir.empty()) dump.emplace(dump_dir, odd_verifier, odd);
  auto rows = cudalabs::check_ladder<CheckReport, AttentionVariant>(
      out, driver.options().variants, attention_variants(),
      {[&](const AttentionVariant& variant) { return timed->check(variant); },
       [&](const AttentionVariant& variant) {
         CheckReport report = odd_verifier.check(variant);
         if (dump && report.outcome == CheckOutcome::kPassed)
           dump->add_output(variant.name, odd_verifier.last_output());
         return report;
       }},
      all_passed,
      [](const AttentionVariant& v) { return v.unavailable == nullptr ? "" : v.unavailable(); });
  return {shape, std::move(timed), std::move(rows)};
}

void add_attention_runs(cudalabs::LabDriver& driver, const AttentionProblem& problem,
                        cudalabs::DeviceArena& arena,
                        std::vector<std::unique_ptr<lab13_library::CublasAttention>>& cublas) {
  const AttentionShape shape = problem.shape;
  AttentionVerifier* verifier = problem.verifier.get();
  __nv_bfloat16* output = arena.allocate<__nv_bfloat16>(shape.elements());
  const __nv_bfloat16 *q = verifier->q(), *k = verifier->k(), *v = verifier->v();
  const float scale = verifier->scale();
  lab13_library::CublasAttention* library =
      cublas.emplace_back(std::make_unique<lab13_library::CublasAttention>(shape)).get();
  driver.add_reference("reference/cublas_attention/" + shape.label(), shape.flops(), 0.0,
                       [=](cudaStream_t s) { library->run(q, k, v, output, scale, s); });
  cudalabs::add_ladder_runs(
      driver, attention_variants(), problem.rows, shape.label(), shape.flops(), 0.0,
      [&](const AttentionVariant& variant) {
        const std::size_t bytes = variant.workspace_bytes(shape);
        return AttentionArgs{shape, q, k, v, output, scale, arena.allocate<unsigned char>(bytes),
                             bytes};
      },
      [verifier](const AttentionVariant& variant, const AttentionArgs& args, std::uint64_t seed) {
        return verifier->check_in_timed_buffers(variant, args, seed);
      });
}

void print_attention_table(const cudalabs::LabDriver& driver, const AttentionProblem& problem,
                           const std::map<std::string, cudalabs::BenchmarkMedian>& medians,
                           const lab13_library::SdpaResults& sdpa) {
  using cudalabs::counter_of, cudalabs::median_of, cudalabs::milliseconds_of;
  const std::string label = problem.shape.label();
  const auto cublas = median_of(medians, "reference/cublas_attention/" + label);
  const double cublas_gflops = counter_of(cublas, "gflops");
  const auto best = sdpa.find("best", label);
  const double best_gflops = best ? best->gflops : NAN;
  TextTable table({{"variant", false},
                   {"ms", true},
                   {"TFLOP/s", true},
                   {"% of cuBLAS", true},
                   {"x SDPA best", true},
                   {"error / bound", true},
                   {"check", false}});
  table.add_row({"cublas_attention", TextTable::number(milliseconds_of(cublas), 3),
                 TextTable::number(cublas_gflops / 1000.0, 1), "100.0",
                 TextTable::number(cublas_gflops / best_gflops, 2), "-", "reference"});
  add_sdpa_rows(table, sdpa, label, cublas_gflops, best_gflops);
  for (const auto& row : problem.rows) {
    const std::string name = "lab13/" + row.name + "/" + label;
    const auto m = median_of(medians, name);
    const double gflops = counter_of(m, "gflops");
    table.add_row({row.name, TextTable::number(milliseconds_of(m), 3),
                   TextTable::number(gflops / 1000.0, 1),
                   TextTable::number(100.0 * gflops / cublas_gflops, 1),
                   TextTable::number(gflops / best_gflops, 2),
                   TextTable::number(row.skipped.empty() ? row.timed.worst_fraction : NAN, 2),
                   driver.check_cell(row.outcome, name, row.skipped)});
  }
  std::ostream& out = driver.out();
  out << "\nattention " << label << " (BF16, " << TextTable::number(problem.shape.flops() * 1e-9, 1)
      << " GFLOP; sdpa_*: PyTorch's scaled_dot_product_attention"
      << (sdpa.torch_version.empty() ? "" : " " + sdpa.torch_version)
      << ", same GPU, after the lab's timings; x SDPA best: the rate over its fastest "
         "backend's)\n";
  table.print(out);
  print_sdpa_skips(out, sdpa, label);
}

}  // namespace lab13
