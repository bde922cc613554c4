/// @file grader/labs/lab07_remote.h
/// @brief Lab 07's own remote function, declared once for the referee (lab07_proxy.cpp) and the
/// runner (lab07_runner.cpp): grader/remote.h. Its variants and best_gemm are the GEMM labs'
/// calls (gemm_remote.h).
#pragma once

#include "grader/labs/gemm_remote.h"

#include <cstdint>

namespace grader::lab07_remote {

/// lab07::launch_plan: the GEMM run by one plan of best_plan.h, the plan as four integers (its tile
/// an index into lab07::best_candidates(); the runner rebuilds it from the same table).
struct Plan {
  static constexpr const char* kFunction = "gemm.plan";
  gemm_remote::GemmOperands gemm{};  // set by referee/remote_gemm.h
  std::int64_t tile;
  int splits, slice_k, stream_blocks;
  static constexpr auto kWire =
      remote::wire(&Plan::gemm, &Plan::tile, &Plan::splits, &Plan::slice_k, &Plan::stream_blocks);
};

}  // namespace grader::lab07_remote
