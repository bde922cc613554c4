// lab13_attention_steps: the solution's steps past the ladder (attention_steps.h) timed beside the
// rungs they improve (flash_mma, flash_wgmma) and PyTorch's scaled_dot_product_attention, in one
// run on one GPU. It answers "which step pays, and how far is each from FlashAttention-2 (SDPA's
// flash backend) and from the fastest backend (cuDNN on Hopper)?" with measurements.
//
//   lab13_attention_steps [--sequence 1024 --sequence 4096 --sequence 16384] [--mask both]
//                         [--batch 4] [--heads 16] [--head-dim 128] [--repetitions 10]
//                         [--warmups 2] [--settle-ms 200] [--variant NAME]... [--verify-only]
//                         [--no-pytorch]
//                         [--output FILE.json]
//
// Every row is checked first on each timed problem (sampled rows against the CPU in double, with
// lab 13's bound, every element written) and on an odd one (1 x 3 heads x 1000 queries, every
// row); a failing row is not timed and the program exits 1. Timing is interleaved: one measurement
// of every row per round (CUDA events around the launches of about 2 ms of work), the start row
// rotating, each row run untimed for --settle-ms first (at its own clocks, not the last row's),
// medians in the table. After timing every timed row is checked again in the buffers it
// was timed in, on fresh Q, K and V (attention_steps_runs.h): a row wrong there says "FAIL after
// timing" and the program exits 1. PyTorch's backends run after (tools/pytorch_attention.py, the
// same GPU); where they cannot, a line says why.
#include "attention_steps_runs.h"
#include "attention_steps_table.h"
#include "checks.h"
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/device_info.h"
#include "common/json_record.h"
#include "common/random_fill.h"
#include "lab.h"
#include "pytorch_sdpa.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

using lab13::AttentionShape;

struct Options {
  AttentionShape shape{4, 16, 0, 128, false};
  std::vector<int> sequences;
  std::string mask = "both";
  int repetitions = 10;
  int warmups = 2;
  int settle_ms = 200;
  std::vector<std::string> variants;
  bool verify_only = false;
  bool no_pytorch = false;
  std::string output;
};

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
  cudalabs::add_integer_flag(app, "--settle-ms", options.settle_ms, 0, 10000,
                             "Untimed milliseconds of a row before each of its measurements");
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
  const std::vector<lab13::steps::Candidate> all = lab13::steps::candidates(options.variants);
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
    std::vector<lab13::steps::Row> rows;
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
      Problem problem{shape, lab13::steps::check_rows(all, verifier, shape, seed, failures)};
      if (!options.verify_only) {
        lab13::steps::time_and_recheck(problem.rows, shape, verifier, options.warmups,
                                       options.repetitions, options.settle_ms, seed, failures);
      }
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
    sdpa = lab13_library::time_pytorch_sdpa(
        labels, std::max(options.repetitions, 10), options.settle_ms,
        options.output.empty() ? "" : (dir.empty() ? "." : dir));
  }
  nlohmann::json benchmarks = nlohmann::json::array(), rechecks = nlohmann::json::object();
  for (const Problem& p : problems)
    for (nlohmann::json& record : lab13::steps::print_problem(p.rows, p.shape, sdpa, rechecks))
      benchmarks.push_back(std::move(record));
  std::cout << "\nchecks: "
            << (failures == 0 ? "every row passed" : std::to_string(failures) + " failed")
            << " (a failing row is not timed)\n";
  if (!options.output.empty()) {
    nlohmann::json context = nlohmann::json(cudalabs::run_context(device, argc, argv, seed));
    context.update({{"date", cudalabs::utc_timestamp()},
                    {"repetitions", options.repetitions},
                    {"settle_ms", options.settle_ms},
                    {"timing",
                     "CUDA events around a few launches back to back; rounds "
                     "interleaved, each row run untimed for settle_ms first; medians"},
                    {"pytorch_record", cudalabs::recorded_path(sdpa.record)},
                    {"pytorch_skipped", sdpa.skipped}});
    cudalabs::write_json_file(
        options.output, {{"context", context}, {"benchmarks", benchmarks}, {"rechecks", rechecks}});
  }
  return failures == 0 ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
