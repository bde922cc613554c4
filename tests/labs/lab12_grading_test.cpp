// Lab 12 grading tests: every rung of the sum, the scan and the histogram on sizes that are not
// powers of two (one element, one past a warp, a block, a tile, a round of the tiles' totals),
// arrays moved off 16-byte alignment, huge arrays (the histogram past 2^31 bytes: 64-bit
// indices), skewed and single-valued bytes, plus bad arguments. A rung that writes nothing is "not
// implemented yet" in the student build.
#include "common/random_fill.h"
#include "labs/12_reduce_scan_histogram/checks.h"
#include "labs/12_reduce_scan_histogram/lab.h"
#include "tests/support/expect_rejected.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using cudalabs::CheckOutcome;

const bool kStudentBuild = std::string(CUDALABS_BUILD_NAME) == "student";

// A size and the offsets (in elements) of the arrays from a 16-byte boundary.
struct Case {
  std::string name;
  std::size_t count;
  std::size_t input_offset;
  std::size_t output_offset;
};

const std::vector<Case>& sum_cases() {
  static const std::vector<Case> cases = {
      {"one_element", 1, 0, 0},
      {"two_misaligned", 2, 1, 0},
      {"three_at_offset_3", 3, 3, 0},
      {"warp_minus_one", 31, 2, 0},
      {"warp_plus_one", 33, 0, 0},
      {"block_plus_one", 257, 1, 0},
      {"odd_1000", 1000, 3, 0},
      {"four_blocks_of_vectors_plus_5", 4 * 4 * 256 + 5, 2, 0},
      {"odd_1000003", 1000003, 1, 0},
      {"past_2_24_sparse_exact", (std::size_t{1} << 25) + 3, 0, 0},  // exact input beyond 2^24
      {"huge_2_28_plus_3", (std::size_t{1} << 28) + 3, 1, 0},
  };
  return cases;
}

const std::vector<Case>& scan_cases() {
  static const std::vector<Case> cases = {
      {"one_value", 1, 0, 0},
      {"two_misaligned", 2, 1, 2},
      {"warp_plus_one", 33, 0, 0},
      {"one_lane_chunk_short", 4095, 0, 0},
      {"one_tile", 4096, 0, 0},
      {"tile_plus_one", 4097, 3, 1},
      {"three_tiles_plus_one", 3 * 4096 + 1, 0, 0},
      {"odd_1000003_misaligned", 1000003, 1, 3},
      {"odd_1000003_aligned", 1000003, 0, 0},
      // 4097 tiles: scan_block's second kernel scans the tiles' totals in two rounds, a tile of
      // 4096 totals and then one.
      {"two_rounds_of_totals", 4096 * 4096 + 5, 0, 0},
      {"huge_2_28_plus_1", (std::size_t{1} << 28) + 1, 2, 2},
  };
  return cases;
}

struct HistogramCase {
  std::string name;
  std::size_t count;
  std::size_t offset;
  lab12::ByteDistribution distribution;
};

const std::vector<HistogramCase>& histogram_cases() {
  using lab12::ByteDistribution;
  static const std::vector<HistogramCase> cases = {
      {"one_byte", 1, 0, ByteDistribution::kUniform},
      {"fifteen_bytes_at_offset_1", 15, 1, ByteDistribution::kUniform},
      {"seventeen_bytes", 17, 0, ByteDistribution::kUniform},
      {"uniform_4095_at_offset_7", 4095, 7, ByteDistribution::kUniform},
      {"skewed_65537", 65537, 0, ByteDistribution::kSkewed},
      {"single_value_100003", 100003, 5, ByteDistribution::kSingleValue},
      {"uniform_1000003", 1000003, 3, ByteDistribution::kUniform},
      {"skewed_1000003", 1000003, 0, ByteDistribution::kSkewed},
      {"huge_past_2_31", (std::size_t{1} << 31) + 1, 1, ByteDistribution::kSkewed},
  };
  return cases;
}

std::uint64_t seed_for(const std::string& what) {
  return cudalabs::derive_seed(cudalabs::run_seed(), "lab12 " + what);
}

// A case's inputs and references, built once and shared by every rung that checks it (the grader's
// referee runs all the tests in one process: the huge cases took most of lab 12's grading time when
// each rung built its own). Kept to the process's end on purpose, never destroyed: their device
// buffers would be freed after the CUDA runtime is gone.
template <class Verifier, class... Args>
Verifier& shared_verifier(const std::string& key, Args... args) {
  static auto* cache = new std::map<std::string, std::unique_ptr<Verifier>>();
  std::unique_ptr<Verifier>& slot = (*cache)[key];
  if (!slot) slot = std::make_unique<Verifier>(args...);
  return *slot;
}

// Skips a student's rung that wrote nothing; fails the solution's.
void expect_report(const lab12::CheckReport& report, const char* variant) {
  const std::string context =
      std::string("(CUDALABS_SEED=") + std::to_string(cudalabs::run_seed()) + ") ";
  if (report.outcome == CheckOutcome::kNotImplemented) {
    if (kStudentBuild) GTEST_SKIP() << variant << ": not implemented yet";
    FAIL() << context << report.message << ": the solution writes nothing";
  }
  EXPECT_EQ(report.outcome, CheckOutcome::kPassed) << context << report.message;
}

class CheckTest : public ::testing::Test {
 public:
  explicit CheckTest(std::function<void()> body) : body_(std::move(body)) {}
  void TestBody() override {
    CUDALABS_REQUIRE_GPU();
    body_();
  }

 private:
  std::function<void()> body_;
};

class PlainTest : public ::testing::Test {
 public:
  explicit PlainTest(std::function<void()> body) : body_(std::move(body)) {}
  void TestBody() override { body_(); }

 private:
  std::function<void()> body_;
};

void register_test(const std::string& suite, const std::string& name, bool needs_gpu,
                   std::function<void()> body) {
  ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [=]() -> ::testing::Test* {
                            if (needs_gpu) return new CheckTest(body);
                            return new PlainTest(body);
                          });
}

// ---- Bad arguments: refused before any launch, with the argument named (no GPU needed) ----

void sum_rejects(const lab12::SumVariant& variant) {
  alignas(16) static float dummy[8] = {};
  const lab12::SumArgs good{dummy, 4, dummy + 4, nullptr, 0};
  auto expect = [&](lab12::SumArgs args, const std::string& needle) {
    cudalabs::testing::expect_rejected(
        variant.name, [&] { variant.launch(args, nullptr); }, needle);
  };
  lab12::SumArgs args = good;
  args.input = nullptr;
  expect(args, "pointer input");
  args = good;
  args.sum = nullptr;
  expect(args, "pointer sum");
  args = good;
  args.count = 0;
  expect(args, "count = 0");
  args = good;
  args.input = reinterpret_cast<const float*>(reinterpret_cast<const char*>(dummy) + 2);
  expect(args, "not 4-byte aligned");
  if (variant.workspace_bytes(4) > 0) {
    expect(good, "workspace of 0 bytes, needs");
    args = good;
    args.workspace = dummy;
    args.workspace_bytes = 8;
    expect(args, "workspace of 8 bytes");
  }
}

void scan_rejects(const lab12::ScanVariant& variant) {
  alignas(16) static std::uint32_t dummy[64] = {};
  alignas(16) static unsigned char workspace[4096] = {};
  const lab12::ScanArgs good{dummy, dummy + 32, 8, workspace, sizeof workspace};
  auto expect = [&](lab12::ScanArgs args, const std::string& needle) {
    cudalabs::testing::expect_rejected(
        variant.name, [&] { variant.launch(args, nullptr); }, needle);
  };
  lab12::ScanArgs args = good;
  args.input = nullptr;
  expect(args, "pointer input");
  args = good;
  args.output = nullptr;
  expect(args, "pointer output");
  args = good;
  args.count = 0;
  expect(args, "count = 0");
  args = good;
  args.output = dummy + 4;  // 8 values from dummy + 4 overlap the input's 8 from dummy
  expect(args, "overlaps input");
  args = good;
  args.workspace = nullptr;
  expect(args, "workspace of 0 bytes, needs");
  args = good;
  args.workspace_bytes = 4;
  expect(args, "workspace of 4 bytes");
}

void histogram_rejects(const lab12::HistogramVariant& variant) {
  alignas(16) static std::uint32_t bins[lab12::kBins] = {};
  alignas(16) static std::uint8_t bytes[16] = {};
  const lab12::HistogramArgs good{bytes, 16, bins};
  auto expect = [&](lab12::HistogramArgs args, const std::string& needle) {
    cudalabs::testing::expect_rejected(
        variant.name, [&] { variant.launch(args, nullptr); }, needle);
  };
  lab12::HistogramArgs args = good;
  args.input = nullptr;
  expect(args, "pointer input");
  args = good;
  args.bins = nullptr;
  expect(args, "pointer bins");
  args = good;
  args.count = 0;
  expect(args, "count = 0");
  args = good;
  args.count = std::size_t{1} << 32;
  expect(args, "must be < 2^32");
}

const bool registered = [] {
  for (const lab12::SumVariant& variant : lab12::sum_variants()) {
    const std::string suite = std::string("Grading.") + variant.name;
    for (const Case& c : sum_cases()) {
      register_test(suite, c.name, true, [v = &variant, c] {
        auto& verifier = shared_verifier<lab12::SumVerifier>(c.name, c.count, c.input_offset,
                                                             seed_for("sum " + c.name));
        expect_report(verifier.check(*v), v->name);
      });
    }
    register_test(suite, "rejects_bad_arguments", false, [v = &variant] { sum_rejects(*v); });
  }
  for (const lab12::ScanVariant& variant : lab12::scan_variants()) {
    const std::string suite = std::string("Grading.") + variant.name;
    for (const Case& c : scan_cases()) {
      register_test(suite, c.name, true, [v = &variant, c] {
        auto& verifier = shared_verifier<lab12::ScanVerifier>(
            c.name, c.count, c.input_offset, c.output_offset, seed_for("scan " + c.name));
        expect_report(verifier.check(*v), v->name);
      });
    }
    register_test(suite, "rejects_bad_arguments", false, [v = &variant] { scan_rejects(*v); });
  }
  for (const lab12::HistogramVariant& variant : lab12::histogram_variants()) {
    const std::string suite = std::string("Grading.") + variant.name;
    for (const HistogramCase& c : histogram_cases()) {
      register_test(suite, c.name, true, [v = &variant, c] {
        auto& verifier = shared_verifier<lab12::HistogramVerifier>(
            c.name, c.count, c.offset, c.distribution, seed_for("histogram " + c.name));
        expect_report(verifier.check(*v), v->name);
      });
    }
    register_test(suite, "rejects_bad_arguments", false, [v = &variant] { histogram_rejects(*v); });
  }
  return true;
}();

}  // namespace
