// Lab 13 grading tests: every softmax rung on odd shapes (one element, one row, short and very long
// rows, rows past the fused kernel's 4096 columns, masked entries, values whose exponential
// overflows FP32, in place, misaligned), every attention rung on sequence lengths around its tiles
// (1, 7, 63, 64, 65, 127, 129, 200, 1000, 1025), head dimensions 64 and 128, causal and not, and at
// the timed size (sampled rows), plus bad arguments. A rung that writes nothing is "not implemented
// yet" in the student build; one the GPU cannot run is skipped with the reason. Built a third time
// as lab13_steps_tests (LAB13_GRADE_STEPS, instructors' copies): the solution's steps past the
// ladder (solutions/13_attention/attention_steps.h) on the attention cases, on keys whose scores
// rise along the sequence (the maximum a lazy step lets lag must still be caught up), and on more
// query tiles than an H200 has SMs at odd lengths (a persistent step's blocks walk several).
#include "common/random_fill.h"
#include "labs/13_attention/checks.h"
#include "labs/13_attention/lab.h"
#include "tests/support/expect_rejected.h"
#include "tests/support/gpu_test.h"

#ifdef LAB13_GRADE_STEPS
#include "solutions/13_attention/attention_steps.h"
#endif

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

using cudalabs::CheckOutcome;
using lab13::AttentionShape;
using lab13::SoftmaxInputs;

const bool kStudentBuild = std::string(CUDALABS_BUILD_NAME) == "student";

struct SoftmaxCase {
  std::string name;
  int rows, columns;
  SoftmaxInputs inputs;
  std::size_t offset;
  bool in_place;
};

[[maybe_unused]] const std::vector<SoftmaxCase>& softmax_cases() {
  static const std::vector<SoftmaxCase> cases = {
      {"one_element", 1, 1, SoftmaxInputs::kUniform, 0, false},
      {"one_row_of_33", 1, 33, SoftmaxInputs::kUniform, 1, false},
      {"seven_rows_of_1000_misaligned", 7, 1000, SoftmaxInputs::kUniform, 3, false},
      {"masked_in_place", 100, 257, SoftmaxInputs::kMasked, 0, true},
      {"large_values_overflow_exp", 64, 4096, SoftmaxInputs::kLarge, 0, false},
      {"past_4096_columns", 5, 4097, SoftmaxInputs::kUniform, 2, false},
      {"very_long_rows_masked", 3, 100000, SoftmaxInputs::kMasked, 1, true},
      {"many_short_rows", 100003, 3, SoftmaxInputs::kUniform, 0, false},
      {"odd_1000_by_1001", 1000, 1001, SoftmaxInputs::kLarge, 1, false},
      {"huge_32768_by_4096", 32768, 4096, SoftmaxInputs::kUniform, 0, false},
  };
  return cases;
}

struct AttentionCase {
  std::string name;
  AttentionShape shape;
  bool sampled;
  bool rising_keys = false;  // AttentionVerifier's: the row maxima rise along the keys
};

const std::vector<AttentionCase>& attention_cases() {
  static const std::vector<AttentionCase> cases = {
      {"one_query_d64", {1, 1, 1, 64, false}, false},
      {"one_query_d128_causal", {1, 2, 1, 128, true}, false},
      {"seven_causal_d64", {2, 1, 7, 64, true}, false},
      {"tile_minus_one_d128", {1, 2, 63, 128, false}, false},
      {"one_tile_d128_causal", {1, 2, 64, 128, true}, false},
      {"tile_plus_one_d64_causal", {1, 3, 65, 64, true}, false},
      {"two_tiles_minus_one_d128", {1, 1, 127, 128, false}, false},
      {"two_tiles_plus_one_d128_causal", {1, 1, 129, 128, true}, false},
      {"batch_2_heads_3_s200_d128", {2, 3, 200, 128, false}, false},
      {"s1000_d64_causal", {1, 2, 1000, 64, true}, false},
      {"s1025_d128_causal", {2, 1, 1025, 128, true}, false},
      {"s1025_d128", {1, 2, 1025, 128, false}, false},
      {"timed_size_sampled", {4, 16, 4096, 128, false}, true},
      {"timed_size_causal_sampled", {4, 16, 4096, 128, true}, true},
#ifdef LAB13_GRADE_STEPS
      // The steps that let a row's maximum lag (flash_*_lazy) rescale only when it rises far.
      {"rising_keys_s1025_d128", {1, 2, 1025, 128, false}, false, true},
      {"rising_keys_s1000_d64_causal", {1, 2, 1000, 64, true}, false, true},
      {"rising_keys_timed_size_sampled", {4, 16, 4096, 128, false}, true, true},
      // More query tiles than SMs at odd lengths: a persistent block walks several (sampled rows).
      {"many_tiles_b8h20s1025_d128_causal_sampled", {8, 20, 1025, 128, true}, true},
      {"many_tiles_b4h40s1000_d64_sampled", {4, 40, 1000, 64, false}, true},
#endif
  };
  return cases;
}

std::uint64_t seed_for(const std::string& what) {
  return cudalabs::derive_seed(cudalabs::run_seed(), "lab13 " + what);
}

void expect_report(const lab13::CheckReport& report, const char* variant) {
  const std::string context = "(CUDALABS_SEED=" + std::to_string(cudalabs::run_seed()) + ") ";
  if (report.outcome == CheckOutcome::kNotImplemented) {
    if (kStudentBuild) GTEST_SKIP() << variant << ": not implemented yet";
    FAIL() << context << report.message << ": the solution writes nothing";
  }
  EXPECT_EQ(report.outcome, CheckOutcome::kPassed) << context << report.message;
}

class BodyTest : public ::testing::Test {
 public:
  BodyTest(std::function<void()> body, bool needs_gpu) : body_(std::move(body)), gpu_(needs_gpu) {}
  void TestBody() override {
    if (gpu_) CUDALABS_REQUIRE_GPU();
    body_();
  }

 private:
  std::function<void()> body_;
  bool gpu_;
};

void register_test(const std::string& suite, const std::string& name, bool needs_gpu,
                   std::function<void()> body) {
  ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [=]() -> ::testing::Test* { return new BodyTest(body, needs_gpu); });
}

// ---- Bad arguments: refused before any launch, with the argument named (no GPU needed) ----

[[maybe_unused]] void softmax_rejects(const lab13::SoftmaxVariant& variant) {
  alignas(16) static float dummy[64] = {};
  const lab13::SoftmaxArgs good{dummy, dummy + 32, 2, 8};
  auto expect = [&](lab13::SoftmaxArgs args, const std::string& needle) {
    cudalabs::testing::expect_rejected(
        variant.name, [&] { variant.launch(args, nullptr); }, needle);
  };
  lab13::SoftmaxArgs args = good;
  args.input = nullptr;
  expect(args, "pointer input");
  args = good;
  args.output = nullptr;
  expect(args, "pointer output");
  args = good;
  args.rows = 0;
  expect(args, "rows = 0");
  args = good;
  args.columns = -1;
  expect(args, "columns = -1");
  args = good;
  args.output = dummy + 4;  // 16 values from dummy + 4 overlap the input's 16 from dummy
  expect(args, "overlaps input");
}

void attention_rejects(const lab13::AttentionVariant& variant) {
  alignas(16) static __nv_bfloat16 dummy[64] = {};
  lab13::AttentionArgs good{{1, 1, 4, 64, false}, dummy,  dummy,   dummy,
                            dummy + 32,           0.125f, nullptr, 0};
  alignas(16) static unsigned char workspace[256] = {};
  if (variant.workspace_bytes(good.shape) > 0) {
    good.workspace = workspace;
    good.workspace_bytes = sizeof workspace;
  }
  auto expect = [&](lab13::AttentionArgs args, const std::string& needle) {
    cudalabs::testing::expect_rejected(
        variant.name, [&] { variant.launch(args, nullptr); }, needle);
  };
  lab13::AttentionArgs args = good;
  args.shape.batch = 0;
  expect(args, "batch = 0");
  args = good;
  args.shape.sequence = 0;
  expect(args, "sequence = 0");
  args = good;
  args.shape.head_dim = 96;
  expect(args, "head_dim = 96 must be 64 or 128");
  args = good;
  args.shape.batch = 256;
  args.shape.heads = 257;
  expect(args, "must be <= 65535");
  args = good;
  args.scale = std::numeric_limits<float>::quiet_NaN();
  expect(args, "scale = ");
  args = good;
  args.q = nullptr;
  expect(args, "pointer q");
  args = good;
  args.o = dummy + 1;  // 2 bytes past a 16-byte boundary
  expect(args, "pointer o is not 16-byte aligned");
  if (variant.workspace_bytes(good.shape) > 0) {
    args = good;
    args.workspace_bytes = 8;
    expect(args, "workspace of 8 bytes");
  }
}

void register_attention(const lab13::AttentionVariant& variant) {
  const std::string suite = std::string("Grading.") + variant.name;
  for (const AttentionCase& c : attention_cases()) {
    register_test(suite, c.name, true, [v = &variant, c] {
      if (v->unavailable != nullptr) {
        if (const std::string why = v->unavailable(); !why.empty())
          GTEST_SKIP() << v->name << ": " << why;
      }
      lab13::AttentionVerifier verifier(c.shape, seed_for("attention " + c.name), c.sampled,
                                        c.rising_keys);
      expect_report(verifier.check(*v), v->name);
    });
  }
  register_test(suite, "rejects_bad_arguments", false, [v = &variant] { attention_rejects(*v); });
}

const bool registered = [] {
#ifdef LAB13_GRADE_STEPS
  // lab13_steps_tests: the solution's steps past the ladder, on the attention rungs' cases.
  for (const lab13::AttentionStep& step : lab13::attention_steps())
    register_attention(step.variant);
#else
  for (const lab13::SoftmaxVariant& variant : lab13::softmax_variants()) {
    const std::string suite = std::string("Grading.") + variant.name;
    for (const SoftmaxCase& c : softmax_cases()) {
      register_test(suite, c.name, true, [v = &variant, c] {
        lab13::SoftmaxVerifier verifier(c.rows, c.columns, c.inputs, c.offset, c.in_place,
                                        seed_for("softmax " + c.name));
        expect_report(verifier.check(*v), v->name);
      });
    }
    register_test(suite, "rejects_bad_arguments", false, [v = &variant] { softmax_rejects(*v); });
  }
  for (const lab13::AttentionVariant& variant : lab13::attention_variants())
    register_attention(variant);
#endif
  return true;
}();

}  // namespace
