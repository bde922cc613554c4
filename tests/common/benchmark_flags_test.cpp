// parse_flags_with_benchmark: Google Benchmark's flags pass, and only they; a bad one is refused in
// one line before anything runs (Google Benchmark itself would print its usage and exit 0).
#include "common/benchmark_support.h"
#include "common/cli.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cudalabs {
namespace {

std::string outcome(std::vector<std::string> words) {
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  CLI::App app;
  int m = 4;
  add_integer_flag(app, "--m", m, 1, 100, "rows");
  try {
    const std::vector<std::string> rest =
        parse_flags_with_benchmark(app, static_cast<int>(argv.size()), argv.data());
    std::string passed = "passed:";
    for (std::size_t i = 1; i < rest.size(); ++i) passed += " " + rest[i];
    return passed;
  } catch (const FlagError& error) {
    return error.what();
  }
}

TEST(BenchmarkFlags, PassOnlyGoogleBenchmarksOwn) {
  EXPECT_EQ(outcome({"prog", "--m", "3", "--benchmark_format=json", "--benchmark_min_time=0.5"}),
            "passed: --benchmark_format=json --benchmark_min_time=0.5");
  EXPECT_EQ(outcome({"prog", "--bogus"}), "unknown flag '--bogus' (see --help)");
  EXPECT_EQ(outcome({"prog", "--benchmark_nosuch=1"}),
            "'--benchmark_nosuch=1': not a Google Benchmark flag, or not a value it takes (see "
            "--help)");
  EXPECT_EQ(outcome({"prog", "--benchmark_format", "json"}),
            "unexpected argument 'json' (see --help)");
}

TEST(BenchmarkFlags, RefuseABadValueInOneLine) {
  // Google Benchmark says why on std::cerr as well; the program's one line is all that shows.
  testing::internal::CaptureStderr();
  EXPECT_EQ(outcome({"prog", "--benchmark_min_time=abc"}),
            "'--benchmark_min_time=abc': not a Google Benchmark flag, or not a value it takes (see "
            "--help)");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(BenchmarkFlags, RefuseValuesGoogleBenchmarkWouldAnswerWithItsUsage) {
  EXPECT_EQ(outcome({"prog", "--benchmark_format=xml"}),
            "--benchmark_format: invalid value 'xml' (expected console, json, csv)");
  EXPECT_EQ(outcome({"prog", "--benchmark_out_format=yaml"}),
            "--benchmark_out_format: invalid value 'yaml' (expected json, console, csv)");
  EXPECT_EQ(outcome({"prog", "--benchmark_time_unit=h"}),
            "--benchmark_time_unit: invalid value 'h' (expected ns, us, ms, s)");
}

}  // namespace
}  // namespace cudalabs
