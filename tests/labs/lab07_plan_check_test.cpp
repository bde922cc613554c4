// lab07_plans' check after timing on the CPU (labs/07_wide_loads/plan_check.h): CPU stand-ins for
// cuBLAS and three plans in one set of "timed buffers", so that the recheck is shown to fail for a
// plan that was right when first checked but is wrong where it was timed.
#include "labs/07_wide_loads/plan_check.h"

#include "common/poison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace lab07 {
namespace {

// C = A x B for a 1 x k by k x n product, in double then rounded as an FP32 GEMM's would be.
std::vector<float> product(const std::vector<float>& a, const std::vector<float>& b, int k) {
  const std::size_t n = b.size() / static_cast<std::size_t>(k);
  std::vector<float> c(n, 0.0f);
  for (std::size_t j = 0; j < n; ++j) {
    double sum = 0.0;
    for (int p = 0; p < k; ++p) sum += static_cast<double>(a[p]) * b[p * n + j];
    c[j] = static_cast<float>(sum);
  }
  return c;
}

// The timed buffers and the plans that run in them: 0 right every time, 1 returns the C of its
// first call ever after (it "remembers" the pointers), 2 writes its C once and then nothing.
struct TimedBuffers {
  static constexpr int kK = 64;
  std::vector<float> a = std::vector<float>(kK), b = std::vector<float>(kK * 8);
  std::vector<float> first_c;
  int calls_of_2 = 0;

  explicit TimedBuffers(float scale) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = scale * std::sin(1.0f + i);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.5f * i);
  }
  void refill() {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::cos(3.0f + i);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::sin(0.25f * i + 1.0f);
  }
  std::vector<float> run(int plan) {
    std::vector<float> c = product(a, b, kK);
    if (plan == 1) {
      if (first_c.empty()) first_c = c;
      return first_c;
    }
    if (plan == 2 && ++calls_of_2 > 1) return cudalabs::poisoned_host(c.size());  // as C was left
    return c;
  }
};

TEST(PlanCheck, ComparesWithCublasAndSeesAnUnwrittenC) {
  const std::vector<float> want{1.0f, 2.0f, 3.0f};
  EXPECT_EQ(compare_output(want, want).rel_l2, 0.0);
  // A NaN the plan computed is written (and wrong); only the poison's bits are "never written".
  EXPECT_TRUE(compare_output(std::vector<float>{1.0f, std::nanf(""), 3.0f}, want).written);
  EXPECT_TRUE(compare_output(want, want).written);
  const PlanOutput off = compare_output(std::vector<float>{1.0f, 2.0f, 3.5f}, want);
  EXPECT_NEAR(off.rel_l2, 0.5 / std::sqrt(14.0), 1e-12);
  const std::vector<float> poisoned = cudalabs::poisoned_host(3);
  EXPECT_FALSE(compare_output(poisoned, want).written);
  EXPECT_TRUE(std::isnan(compare_output(poisoned, want).rel_l2));
  EXPECT_GT(error_bound(4096), error_bound(64));  // the bound grows with K's accumulation
}

TEST(PlanCheck, APlanWrongOnlyAfterItsFirstCallFailsItsRecheck) {
  TimedBuffers buffers(1.0f);
  const std::vector<float> checked_want = product(buffers.a, buffers.b, TimedBuffers::kK);
  for (int plan = 0; plan < 3; ++plan) {  // the check before timing: every plan right
    const PlanOutput first = compare_output(buffers.run(plan), checked_want);
    EXPECT_TRUE(first.written && first.rel_l2 <= error_bound(TimedBuffers::kK)) << plan;
  }
  int refills = 0;
  const std::vector<cudalabs::Recheck> rechecks = recheck_plans(
      3, TimedBuffers::kK,
      [&] {
        ++refills;
        buffers.refill();
      },
      [&] { return product(buffers.a, buffers.b, TimedBuffers::kK); },
      [&](int plan) { return buffers.run(plan); });
  EXPECT_EQ(refills, 1);
  ASSERT_EQ(rechecks.size(), 3u);
  EXPECT_TRUE(rechecks[0].passed) << rechecks[0].message;
  EXPECT_NE(rechecks[0].message.find(": PASS"), std::string::npos) << rechecks[0].message;
  EXPECT_FALSE(rechecks[1].passed) << rechecks[1].message;  // its first C, stale on fresh inputs
  EXPECT_NE(rechecks[1].message.find("FAIL (after timing)"), std::string::npos)
      << rechecks[1].message;
  EXPECT_FALSE(rechecks[2].passed) << rechecks[2].message;  // left C poisoned
  EXPECT_NE(rechecks[2].message.find("never written: not implemented yet (after timing)"),
            std::string::npos)
      << rechecks[2].message;
}

TEST(PlanCheck, WithoutFreshInputsTheStalePlanWouldPass) {
  // Why the recheck draws fresh A and B: in the same inputs a plan that returns its first C looks
  // right, so only the refill tells it apart.
  TimedBuffers buffers(1.0f);
  const std::vector<cudalabs::Recheck> rechecks = recheck_plans(
      2, TimedBuffers::kK, [] {}, [&] { return product(buffers.a, buffers.b, TimedBuffers::kK); },
      [&](int plan) { return buffers.run(plan); });
  EXPECT_TRUE(rechecks[1].passed) << rechecks[1].message;
}

}  // namespace
}  // namespace lab07
