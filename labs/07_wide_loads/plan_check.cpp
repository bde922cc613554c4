#include "labs/07_wide_loads/plan_check.h"

#include "common/poison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lab07 {

PlanOutput compare_output(std::span<const float> got, std::span<const float> want) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = static_cast<double>(got[i]) - want[i];
    diff += d * d;
    norm += static_cast<double>(want[i]) * want[i];
  }
  return {std::sqrt(diff / std::max(norm, 1e-300)),
          !std::all_of(got.begin(), got.end(), cudalabs::is_poison)};
}

double error_bound(int k) {
  return 8.0 * std::ldexp(1.0, -24) * std::sqrt(k + 2.0);
}

std::vector<cudalabs::Recheck> recheck_plans(int plans, int k, const std::function<void()>& refill,
                                             const std::function<std::vector<float>()>& reference,
                                             const std::function<std::vector<float>(int)>& run) {
  refill();
  const std::vector<float> want = reference();
  std::vector<cudalabs::Recheck> rechecks;
  for (int i = 0; i < plans; ++i) {
    const PlanOutput output = compare_output(run(i), want);
    const bool passed = output.written && output.rel_l2 <= error_bound(k);
    char message[160];
    if (!output.written) {
      std::snprintf(message, sizeof message,
                    "timed buffers refilled, fresh A and B: C never written: not implemented yet "
                    "(after timing)");
    } else {
      std::snprintf(message, sizeof message,
                    "timed buffers refilled, fresh A and B: rel. L2 %.2e against cuBLAS (bound "
                    "%.2e): %s",
                    output.rel_l2, error_bound(k), passed ? "PASS" : "FAIL (after timing)");
    }
    rechecks.push_back({passed, message});
  }
  return rechecks;
}

}  // namespace lab07
