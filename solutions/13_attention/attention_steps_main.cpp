// lab13_attention_steps: the solution's steps past the ladder (attention_steps.h) timed beside the
// rungs they improve (flash_mma, flash_wgmma) and PyTorch's scaled_dot_product_attention, in one
// run on one GPU. It answers "which step pays, and how far is each from FlashAttention-2 (SDPA's
// flash backend) and from the fastest backend (cuDNN on Hopper)?" with measurements.
//
//   lab13_attention_steps [--sequence 1024 --sequence 4096 --sequence 16384] [--mask both]
//                         [--batch 4] [--heads 16] [--head-dim 128] [--repetitions 10]
//                         [--warmups 2] [--variant NAME]... [--verify-only] [--no-pytorch]
//                         [--output FILE.json]
//
// Every row is checked first on each timed problem (sampled rows against the CPU in double, with
// lab 13's bound, every element written) and on an odd one (1 x 3 heads x 1000 queries, every
// row); a failing row is not timed and the program exits 1. Timing is interleaved: one measurement
// of every row per round (CUDA events around the launches of about 2 ms of work), the start row
// rotating, medians in the table. PyTorch's backends run after (tools/pytorch_attention.py, the
// same GPU); where they cannot, a line says why.
#include "attention_steps.h"
#include "checks.h"
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/event_timer.h"
#include "common/json_record.h"
#include "common/random_fill.h"
#include "common/text_table.h"
#include "lab.h"
#include "pytorch_sdpa.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

using cudalabs::TextTable;
using lab13::AttentionShape;
using lab13::AttentionVariant;

struct Options {
  AttentionShape shape{4, 16, 0, 128, false};
  std::vector<int> sequences;
  std::string mask = "both";
  int repetitions = 10;
  int warmups = 2;
  std::vector<std::string> variants;
  bool verify_only = false;
  bool no_pytorch = false;
  std::string output;
};

// A row: a variant and the one it improves ("" for the ladder's rungs).
struct Candidate {
  const AttentionVariant* variant;
  std::string improves;
};

std::vector<Candidate> candidates(const Options& options) {
  std::vector<Candidate> all;
  for (const AttentionVariant& v : lab13::attention_variants())
    if (std::string(v.name).rfind("flash_", 0) == 0) all.push_back({&v, ""});
  for (const lab13::AttentionStep& step : lab13::attention_steps())
    all.push_back({&step.variant, step.improves});
  std::vector<Candidate> chosen;
  for (const Candidate& c : all) {
    if (options.variants.empty() || std::find(options.variants.begin(), options.variants.end(),
                                              c.variant->name) != options.variants.end())
      chosen.push_back(c);
  }
  for (const std::string& name : options.variants) {
    if (std::none_of(all.begin(), all.end(),
                     [&](const Candidate& c) { return name == c.variant->name; })) {
      std::string known;
      for (const Candidate& c : all)
        known += (known.empty() ? "" : ", ") + std::string(c.variant->name);
      throw cudalabs::FlagError("--variant: unknown variant '" + name + "' (known: " + known + ")");
    }
  }
  return chosen;
}

std::string unavailable(const AttentionVariant& v) {
  return v.unavailable == nullptr ? std::string() : v.unavailable();
}

// One timed row of one problem.
struct Row {
  const Candidate* candidate;
  std::string check;  // "PASS", "FAIL: ...", "skipped: ..."
  std::vector<double> ms;
};

struct KernelFacts {
  int registers = 0;
  int blocks_per_sm = 0;
};

KernelFacts facts_of(const AttentionVariant& v, const AttentionShape& shape) {
  const cudalabs::KernelLaunch launch = v.describe(shape);
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
  CUDA_CHECK(cudaFuncSetAttribute(launch.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(launch.dynamic_shared_bytes)));
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, launch.kernel, static_cast<int>(launch.block.x * launch.block.y * launch.block.z),
      launch.dynamic_shared_bytes));
  return {attributes.numRegs, blocks};
}

// Checks every row on `shape` (sampled rows) and on the odd problem; fills each row's verdict.
std::vector<Row> check_rows(const std::vector<Candidate>& all, lab13::AttentionVerifier& timed,
                            const AttentionShape& shape, std::uint64_t seed, int& failures) {
  AttentionShape odd{1, 3, 1000, shape.head_dim, shape.causal};
  lab13::AttentionVerifier odd_verifier(
      odd, cudalabs::derive_seed(seed, "steps odd " + odd.label()), false);
  std::vector<Row> rows;
  for (const Candidate& c : all) {
    Row row{&c, "PASS", {}};
    if (const std::string why = unavailable(*c.variant); !why.empty()) {
      row.check = "skipped: " + why;
    } else {
      for (lab13::AttentionVerifier* verifier : {&timed, &odd_verifier}) {
        const lab13::CheckReport report = verifier->check(*c.variant);
        std::cout << "  " << report.message << "\n";
        if (report.outcome != cudalabs::CheckOutcome::kPassed) {
          row.check = "FAIL";
          ++failures;
        }
      }
    }
    rows.push_back(row);
  }
  return rows;
}

// Times the passing rows, interleaved.
void time_rows(std::vector<Row>& rows, const AttentionShape& shape,
               const lab13::AttentionVerifier& verifier, const Options& options) {
  cudalabs::DeviceBuffer<__nv_bfloat16> output(shape.elements());
  std::vector<Row*> timed;
  for (Row& row : rows)
    if (row.check == "PASS") timed.push_back(&row);
  if (timed.empty()) return;
  const auto launch = [&](const Row& row, cudaStream_t stream) {
    row.candidate->variant->launch({shape, verifier.q(), verifier.k(), verifier.v(), output.data(),
                                    verifier.scale(), nullptr, 0},
                                   stream);
  };
  // A measurement is `batch` launches between two events (about 2 ms of work).
  const double estimate_ms = cudalabs::median(cudalabs::time_each_run_ms(
      [&](cudaStream_t s, int) { launch(*timed.front(), s); }, options.warmups, 3));
  const int batch = static_cast<int>(std::clamp(2.0 / estimate_ms, 1.0, 50.0));
  const auto measure = [&](const Row& row, int warmups) {
    const auto runs = [&](cudaStream_t s, int) {
      for (int i = 0; i < batch; ++i) launch(row, s);
    };
    return cudalabs::time_each_run_ms(runs, warmups, 1).front() / batch;
  };
  for (Row* row : timed) measure(*row, options.warmups);
  for (int round = 0; round < options.repetitions; ++round) {
    for (std::size_t i = 0; i < timed.size(); ++i) {
      Row& row = *timed[(i + round) % timed.size()];
      row.ms.push_back(measure(row, 0));
    }
  }
}

double median_of(const std::vector<Row>& rows, const std::string& name) {
  for (const Row& row : rows)
    if (name == row.candidate->variant->name) return cudalabs::median(row.ms);
  return std::nan("");
}

nlohmann::json print_problem(const std::vector<Row>& rows, const AttentionShape& shape,
                             const lab13_library::SdpaResults& sdpa) {
  const std::string label = shape.label();
  const double flops = shape.flops();
  const auto sdpa_gflops = [&](const std::string& backend) {
    const auto timing = sdpa.find(backend, label);
    return timing ? timing->gflops : std::nan("");
  };
  const double flash = sdpa_gflops("flash"), best = sdpa_gflops("best");
  TextTable table({{"row", false},
                   {"improves", false},
                   {"ms", true},
                   {"TFLOP/s", true},
                   {"x improved", true},
                   {"x SDPA flash", true},
                   {"x SDPA best", true},
                   {"registers", true},
                   {"blocks/SM", true},
                   {"check", false}});
  for (const std::string& backend : lab13_library::kSdpaBackends) {
    if (const auto timing = sdpa.find(backend, label)) {
      table.add_row({"sdpa_" + backend, "-", TextTable::number(timing->ms, 3),
                     TextTable::number(timing->gflops / 1000.0, 1), "-",
                     TextTable::number(timing->gflops / flash, 2),
                     TextTable::number(timing->gflops / best, 2), "-", "-", "reference"});
    }
  }
  nlohmann::json records = nlohmann::json::array();
  for (const Row& row : rows) {
    const AttentionVariant& v = *row.candidate->variant;
    const double ms = cudalabs::median(row.ms);
    const double gflops = flops / (ms * 1e-3) * 1e-9;
    const double improved = row.candidate->improves.empty()
                                ? std::nan("")
                                : median_of(rows, row.candidate->improves) / ms;
    std::string registers = "-", blocks = "-";
    nlohmann::json record = {{"name", "lab13_attention_steps/" + std::string(v.name) + "/" + label},
                             {"row", v.name},
                             {"improves", row.candidate->improves},
                             {"problem", label},
                             {"check", row.check}};
    if (row.check == "PASS") {
      const KernelFacts facts = facts_of(v, shape);
      registers = std::to_string(facts.registers);
      blocks = std::to_string(facts.blocks_per_sm);
      record.update(
          {{"real_time", ms},
           {"time_unit", "ms"},
           {"gflops", gflops},
           {"vs_improved", std::isnan(improved) ? nlohmann::json() : nlohmann::json(improved)},
           {"vs_sdpa_flash", std::isnan(flash) ? nlohmann::json() : nlohmann::json(gflops / flash)},
           {"vs_sdpa_best", std::isnan(best) ? nlohmann::json() : nlohmann::json(gflops / best)},
           {"registers", facts.registers},
           {"blocks_per_sm", facts.blocks_per_sm},
           {"times_ms", row.ms}});
    }
    table.add_row({v.name, row.candidate->improves.empty() ? "-" : row.candidate->improves,
                   TextTable::number(ms, 3), TextTable::number(gflops / 1000.0, 1),
                   TextTable::number(improved, 2), TextTable::number(gflops / flash, 2),
                   TextTable::number(gflops / best, 2), registers, blocks,
                   row.check.size() > 60 ? row.check.substr(0, 60) + "..." : row.check});
    records.push_back(record);
  }
  std::cout << "\nattention " << label << " (BF16, " << TextTable::number(flops * 1e-9, 1)
            << " GFLOP; x improved: the row it improves' time over this row's)\n";
  table.print(std::cout);
  if (const auto all = sdpa.skipped.find("all"); all != sdpa.skipped.end()) {
    std::cout << "PyTorch's attention was not timed: " << all->second << "\n";
  } else {
    for (const std::string& backend : lab13_library::kSdpaBackends) {
      if (const auto why = sdpa.skipped.find(backend + "/" + label); why != sdpa.skipped.end())
        std::cout << "sdpa_" << backend << " did not run: " << why->second << "\n";
    }
  }
  return records;
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{"Times lab 13's steps past the ladder beside flash_mma, flash_wgmma and PyTorch"};
  cudalabs::add_integer_flag(app, "--batch", options.shape.batch, 1, 65535, "Batch");
  cudalabs::add_integer_flag(app, "--heads", options.shape.heads, 1, 65535,
                             "Heads per batch entry");
  app.add_option_function<int>(
         "--sequence",
         [&options](const int& s) {
           if (s < 1 || s > (1 << 20))
             throw cudalabs::FlagError("--sequence: " + std::to_string(s) +
                                       " is outside 1 .. 1048576");
           options.sequences.push_back(s);
         },
         "Sequence length (repeatable; default 1024, 4096 and 16384)")
      ->type_name("N")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cudalabs::add_integer_flag(app, "--head-dim", options.shape.head_dim, 64, 128, "64 or 128");
  app.add_option("--mask", options.mask, "none, causal or both (default both)")
      ->check(CLI::IsMember({"none", "causal", "both"}))
      ->type_name("none|causal|both");
  cudalabs::add_integer_flag(app, "--repetitions", options.repetitions, 1, 1000,
                             "Interleaved rounds; the table shows medians");
  cudalabs::add_integer_flag(app, "--warmups", options.warmups, 0, 100,
                             "Untimed measurements of every row first");
  app.add_option("--variant", options.variants, "Row to run (repeatable; default: all)")
      ->type_name("NAME");
  app.add_flag("--verify-only", options.verify_only, "Check every row, time nothing");
  app.add_flag("--no-pytorch", options.no_pytorch, "Do not time PyTorch's attention backends");
  app.add_option("--output", options.output,
                 "Write every measurement to FILE as JSON (PyTorch's record beside it)")
      ->type_name("FILE");
  cudalabs::parse_flags(app, argc, argv);
  if (options.shape.head_dim != 64 && options.shape.head_dim != 128)
    throw cudalabs::FlagError("--head-dim: " + std::to_string(options.shape.head_dim) +
                              " must be 64 or 128");
  if (options.shape.heads_total() > 65535)
    throw cudalabs::FlagError("--batch/--heads: batch * heads = " +
                              std::to_string(options.shape.heads_total()) + " must be <= 65535");
  if (options.sequences.empty()) options.sequences = {1024, 4096, 16384};
  const std::vector<Candidate> all = candidates(options);
  if (!options.output.empty()) cudalabs::write_json_file(options.output, nlohmann::json::object());
  cudalabs::require_gpu();

  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  const std::uint64_t seed = cudalabs::run_seed();
  std::printf("%s: %s (sm_%d%d, %d SMs), seed %llu\n", cudalabs::program_name().c_str(),
              device.name.c_str(), device.major, device.minor, device.sm_count,
              static_cast<unsigned long long>(seed));
  std::vector<bool> masks = {false, true};
  if (options.mask == "none") masks = {false};
  if (options.mask == "causal") masks = {true};

  int failures = 0;
  struct Problem {
    AttentionShape shape;
    std::vector<Row> rows;
  };
  std::vector<Problem> problems;
  for (const int sequence : options.sequences) {
    for (const bool causal : masks) {
      AttentionShape shape = options.shape;
      shape.sequence = sequence;
      shape.causal = causal;
      std::cout << "check: " << shape.label() << " (sampled rows) and " << shape.head_dim
                << "-wide odd problem b1h3s1000, every row\n";
      lab13::AttentionVerifier verifier(
          shape, cudalabs::derive_seed(seed, "steps " + shape.label()), true);
      Problem problem{shape, check_rows(all, verifier, shape, seed, failures)};
      if (!options.verify_only) time_rows(problem.rows, shape, verifier, options);
      problems.push_back(std::move(problem));
    }
  }
  if (options.verify_only) return failures == 0 ? cudalabs::kExitOk : cudalabs::kExitFailed;

  lab13_library::SdpaResults sdpa;
  if (options.no_pytorch) {
    sdpa.skipped["all"] = "--no-pytorch";
  } else {
    std::vector<std::string> labels;
    for (const Problem& p : problems) labels.push_back(p.shape.label());
    std::cout << "timing: PyTorch's attention backends (tools/pytorch_attention.py bench)\n";
    const std::string dir =
        options.output.empty() ? "" : std::filesystem::path(options.output).parent_path().string();
    sdpa =
        lab13_library::time_pytorch_sdpa(labels, std::max(options.repetitions, 10),
                                         options.output.empty() ? "" : (dir.empty() ? "." : dir));
  }
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const Problem& p : problems)
    for (nlohmann::json& record : print_problem(p.rows, p.shape, sdpa))
      benchmarks.push_back(std::move(record));
  std::cout << "\nchecks: "
            << (failures == 0 ? "every row passed" : std::to_string(failures) + " failed")
            << " (a failing row is not timed)\n";
  if (!options.output.empty()) {
    nlohmann::json context = nlohmann::json(cudalabs::run_context(device, argc, argv, seed));
    context.update({{"date", cudalabs::utc_timestamp()},
                    {"repetitions", options.repetitions},
                    {"timing",
                     "CUDA events around a few launches back to back; rounds "
                     "interleaved, medians"},
                    {"pytorch_record", cudalabs::recorded_path(sdpa.record)},
                    {"pytorch_skipped", sdpa.skipped}});
    cudalabs::write_json_file(options.output, {{"context", context}, {"benchmarks", benchmarks}});
  }
  return failures == 0 ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
