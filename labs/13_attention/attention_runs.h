/// @file labs/13_attention/attention_runs.h
/// @brief Lab 13 driver's attention problems through the driver kit's protocol (common/ladder.h):
/// cuBLAS and every rung checked, timed next to cuBLAS, rechecked in their timed buffers, and each
/// problem's table beside PyTorch's backends.
#pragma once

#include "checks.h"
#include "common/device_arena.h"
#include "common/lab_driver.h"
#include "common/ladder.h"
#include "library_reference.h"
#include "pytorch_sdpa.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lab13 {

/// One attention problem: its verifier's inputs are the timed ones too.
struct AttentionProblem {
  AttentionShape shape;                         ///< the timed problem
  std::unique_ptr<AttentionVerifier> verifier;  ///< its inputs, sampled rows' references
  std::vector<cudalabs::CheckedVariant<CheckReport>> rows;  ///< each chosen rung's verdict
};

/// cuBLAS's attention at `shape` (the yardstick of every element), then every chosen rung at
/// `shape` (sampled rows) and at an odd problem (every row; its inputs and outputs written to
/// `dump_dir` when given). Clears `all_passed` when a rung does not pass.
AttentionProblem check_attention(cudalabs::LabDriver& driver, const AttentionShape& shape,
                                 const std::string& dump_dir, bool& all_passed);

/// cuBLAS's attention and every passing rung of `problem` as timed runs, each rung rechecked in its
/// timed buffers; `arena` and `cublas` keep what they use until then.
void add_attention_runs(cudalabs::LabDriver& driver, const AttentionProblem& problem,
                        cudalabs::DeviceArena& arena,
                        std::vector<std::unique_ptr<lab13_library::CublasAttention>>& cublas);

/// The problem's table: cuBLAS, PyTorch's backends (`sdpa`), then each rung: ms, TFLOP/s, % of
/// cuBLAS, the rate over PyTorch's best, error / bound, check; then which backends did not run.
void print_attention_table(const cudalabs::LabDriver& driver, const AttentionProblem& problem,
                           const std::map<std::string, cudalabs::BenchmarkMedian>& medians,
                           const lab13_library::SdpaResults& sdpa);

}  // namespace lab13
