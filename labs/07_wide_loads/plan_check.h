/// @file labs/07_wide_loads/plan_check.h
/// @brief lab07_plans' verdicts on the host: a plan's C against cuBLAS's in the same operands, and
/// the check after timing in the buffers the plans were timed in (check -> time -> recheck), with
/// no GPU of its own so that a CPU test can make it fail.
#pragma once

#include "common/driver_record.h"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace lab07 {

/// One plan's C against cuBLAS's.
struct PlanOutput {
  double rel_l2 = 0.0;  ///< ||got - want|| / ||want||; NaN when got holds the poison
  bool written = true;  ///< false when every element of C kept the poison (a TODO kernel)
};

/// Compares `got` with `want` (C's rows, the same size).
PlanOutput compare_output(std::span<const float> got, std::span<const float> want);

/// The largest relative L2 difference from cuBLAS an FP32 plan may show at depth `k`.
double error_bound(int k);

/// The check after timing, in the timed buffers: `refill` draws fresh A and B into them,
/// `reference` runs cuBLAS there and returns its C, then `run(i)` poisons C, launches plan i
/// exactly as it was timed and returns C. One Recheck per plan (0 .. plans - 1), held to
/// error_bound(k): "FAIL (after timing)" when wrong, "not implemented yet (after timing)" when C
/// was never written.
std::vector<cudalabs::Recheck> recheck_plans(int plans, int k, const std::function<void()>& refill,
                                             const std::function<std::vector<float>()>& reference,
                                             const std::function<std::vector<float>(int)>& run);

}  // namespace lab07
