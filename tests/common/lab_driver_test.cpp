// The driver kit on the CPU (common/lab_driver.h and its parts): the shared flags, the choice and
// list of variants, the seed, shrink-to-fit, the recheck after timing (a variant wrong only after
// its first call fails the run), and the record's keys.
#include "common/lab_driver.h"

#include "common/cli.h"
#include "common/host_timing.h"
#include "common/ladder.h"
#include "common/random_fill.h"
#include "common/shrink_to_fit.h"
#include "tests/support/command_line.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudalabs {
namespace {

using cudalabs::testing::Args;

const std::vector<VariantName> kVariants = {{"sum_atomic", "one atomic per element"},
                                            {"sum_tree", "a tree in shared memory"}};

// What parsing `words` with a LabDriver of `flags` threw, or "parsed".
std::string parse_error(std::vector<std::string> words, DriverFlags flags = {}) {
  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app, flags);
  Args args(std::move(words));
  try {
    driver.parse(args.argc(), args.argv(), kVariants);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "parsed";
}

TEST(DriverFlags, KeepTheirDefaultsAndRanges) {
  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app);
  Args args({"lab99"});
  ASSERT_TRUE(driver.parse(args.argc(), args.argv(), kVariants));
  EXPECT_EQ(driver.timing().repetitions, 3);
  EXPECT_DOUBLE_EQ(driver.timing().min_time_s, 0.05);
  EXPECT_EQ(driver.timing().warmups, 1);
  EXPECT_FALSE(driver.verify_only());
  EXPECT_TRUE(driver.chosen("sum_tree"));

  EXPECT_EQ(parse_error({"lab99", "--repetitions", "0"}),
            "--repetitions: invalid value '0' (expected an integer from 1 to 1000)");
  EXPECT_EQ(parse_error({"lab99", "--repetitions", "1001"}),
            "--repetitions: invalid value '1001' (expected an integer from 1 to 1000)");
  EXPECT_EQ(parse_error({"lab99", "--warmups", "-1"}),
            "--warmups: invalid value '-1' (expected an integer from 0 to 1000)");
  EXPECT_NE(parse_error({"lab99", "--min-time", "61"}).find("--min-time: invalid value '61'"),
            std::string::npos);
  EXPECT_EQ(parse_error({"lab99", "--repetitions", "7", "--warmups", "0", "--verify-only"}),
            "parsed");
}

TEST(DriverFlags, OnlyTheFlagsALabOffers) {
  DriverFlags lean;
  lean.variant_flag = lean.list_flag = lean.seed_flag = lean.warmups_flag = false;
  lean.results_tag_flag = false;
  for (const char* missing : {"--variant", "--list", "--seed", "--warmups", "--results-tag"}) {
    EXPECT_EQ(parse_error({"lab99", missing, "1"}, lean),
              "unknown flag '" + std::string(missing) + "' (see --help)");
  }
  EXPECT_EQ(parse_error({"lab99", "--repetitions", "2", "--results-dir", "/tmp/x"}, lean),
            "parsed");
}

TEST(DriverFlags, TheHelpNamesTheRecordAndWhatIsChecked) {
  CLI::App app;
  DriverFlags flags;
  flags.checked = "factor";
  LabDriver driver({"lab99", "a test lab"}, app, flags);
  const std::string help = app.help();
  EXPECT_NE(help.find("DIR/lab99_<device>.json"), std::string::npos) << help;
  EXPECT_NE(help.find("Check every factor, time nothing"), std::string::npos) << help;
  EXPECT_NE(help.find("Timed repetitions per factor"), std::string::npos) << help;
}

TEST(VariantChoice, AnUnknownVariantIsOneLineNamingTheKnownOnes) {
  EXPECT_EQ(parse_error({"lab99", "--variant", "sum_tree", "--variant", "fastest"}),
            "--variant: unknown variant 'fastest' (known: sum_atomic, sum_tree)");
  EXPECT_EQ(parse_error({"lab99", "--variant", "sum_tree"}), "parsed");
}

TEST(VariantChoice, ChosenAndAnyChosen) {
  EXPECT_TRUE(is_chosen({}, "anything"));
  EXPECT_TRUE(is_chosen({"a", "b"}, "b"));
  EXPECT_FALSE(is_chosen({"a", "b"}, "c"));
  struct Variant {
    const char* name;
    const char* summary;
  };
  const Variant table[] = {{"x", "first"}, {"y", "second"}};
  EXPECT_TRUE(any_chosen<Variant>({"y"}, table));
  EXPECT_FALSE(any_chosen<Variant>({"z"}, table));
  std::vector<VariantName> names;
  append_variant_names<Variant>(names, table);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[1].name, "y");
  EXPECT_EQ(names[1].summary, "second");
}

TEST(VariantChoice, ListPrintsEveryVariantAndStops) {
  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app);
  Args args({"lab99", "--list"});
  ::testing::internal::CaptureStdout();
  EXPECT_FALSE(driver.parse(args.argc(), args.argv(), kVariants));
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "sum_atomic\tone atomic per element\nsum_tree\ta tree in shared memory\n");
}

// Lab 08's variants are chosen by their coarsening factor: --factor instead of --variant.
DriverFlags factor_flags() {
  DriverFlags flags;
  flags.variant_flag = false;
  flags.number_flag = "--factor";
  flags.number_help = "Coarsening factor to run (repeatable; default: all)";
  flags.numbers = {1, 2, 4, 8, 16, 32};
  return flags;
}

TEST(VariantChoice, ByNumberTakesOnlyItsNumbersInOneLine) {
  EXPECT_EQ(parse_error({"lab99", "--factor", "3"}, factor_flags()),
            "--factor: invalid value '3' (expected 1, 2, 4, 8, 16 or 32)");
  EXPECT_EQ(parse_error({"lab99", "--factor", "64"}, factor_flags()),
            "--factor: invalid value '64' (expected an integer from 1 to 32)");
  EXPECT_EQ(parse_error({"lab99", "--factor", "0"}, factor_flags()),
            "--factor: invalid value '0' (expected an integer from 1 to 32)");
  EXPECT_EQ(parse_error({"lab99", "--factor", "two"}, factor_flags())
                .rfind("--factor: invalid value 'two'", 0),
            0u);
  EXPECT_EQ(parse_error({"lab99", "--variant", "sum_tree"}, factor_flags()),
            "unknown flag '--variant' (see --help)");
  EXPECT_EQ(parse_error({"lab99", "--factor", "32"}), "unknown flag '--factor' (see --help)");
  EXPECT_EQ(parse_number_choice("--k", "2", {2}), 2);
}

TEST(VariantChoice, ByNumberChoosesTheNamedNumbersOrAll) {
  {
    CLI::App app;
    LabDriver driver({"lab99", "a test lab"}, app, factor_flags());
    Args args({"lab99"});
    ASSERT_TRUE(driver.parse(args.argc(), args.argv(), kVariants));
    for (int factor : {1, 2, 4, 8, 16, 32}) EXPECT_TRUE(driver.chosen_number(factor));
    EXPECT_NE(app.help().find("--factor N"), std::string::npos) << app.help();
  }
  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app, factor_flags());
  Args args({"lab99", "--factor", "4", "--factor", "32"});
  ASSERT_TRUE(driver.parse(args.argc(), args.argv(), kVariants));
  EXPECT_TRUE(driver.chosen_number(4));
  EXPECT_TRUE(driver.chosen_number(32));
  EXPECT_FALSE(driver.chosen_number(1));
  EXPECT_FALSE(driver.chosen_number(16));
}

TEST(Seed, GivenOrRefusedInOneLine) {
  EXPECT_EQ(choose_seed("12345"), 12345u);
  EXPECT_EQ(choose_seed("0"), 0u);
  EXPECT_EQ(parse_error({"lab99", "--seed", "-1"}),
            "--seed: invalid value '-1' (expected an integer from 0 to 4611686018427387904)");
  EXPECT_EQ(parse_error({"lab99", "--seed", "abc"}).rfind("--seed: invalid value 'abc'", 0), 0u);
  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app);
  Args args({"lab99", "--seed", "77"});
  ASSERT_TRUE(driver.parse(args.argc(), args.argv(), kVariants));
  EXPECT_EQ(driver.seed(), 77u);
}

TEST(ShrinkToFit, HalvesADefaultUntilItFitsAndSaysSo) {
  // 4 bytes per element; 9/10 of the free memory is the room: 900 MiB holds 2^27 elements * 4.
  const DeviceMemory memory{std::size_t{1000} << 20, std::size_t{4096} << 20};
  const auto bytes = [](long long n) { return static_cast<std::size_t>(n) * 4; };
  std::ostringstream out;
  EXPECT_EQ(shrink_default_to_fit(out, "--n", 1LL << 30, 1 << 20, memory, bytes), 1LL << 27);
  EXPECT_EQ(out.str(),
            "size: the default --n 1073741824 needs 4096 MiB, more than this GPU can spare (1000 "
            "MiB free of 4096 MiB); running --n 134217728 (--n chooses)\n");
  std::ostringstream quiet;
  EXPECT_EQ(shrink_default_to_fit(quiet, "--n", 1 << 20, 1024, memory, bytes), 1 << 20);
  EXPECT_EQ(quiet.str(), "");  // it fits: nothing to say
  std::ostringstream floor;
  EXPECT_EQ(
      shrink_default_to_fit(floor, "--rows", 1 << 30, 1 << 29, memory, bytes, "with the rest"),
      1 << 29);  // never below the smallest
  EXPECT_NE(floor.str().find("needs 4096 MiB with the rest, more than"), std::string::npos);
}

// A fake variant: right on its first call (the check), wrong on every later one (the timing and
// the recheck), as a kernel that caches its first result would be.
struct FakeVariant {
  bool wrong_after_first_call = false;
  int calls = 0;
  float input = 0.0f;
  float output = 0.0f;
  void launch() { output = calls++ == 0 || !wrong_after_first_call ? 2.0f * input : 0.0f; }
};

// Its recheck: a fresh input drawn into the timed buffer, the output poisoned, one launch as timed.
Recheck recheck_of(FakeVariant& fake, float fresh_input) {
  fake.input = fresh_input;
  fake.output = -1.0f;
  fake.launch();
  const bool right = fake.output == 2.0f * fresh_input;
  return {right, right ? "right: PASS" : "got " + std::to_string(fake.output) + ": FAIL"};
}

TEST(RunProtocol, AVariantWrongOnlyAfterItsFirstCallFailsTheRun) {
  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app);
  Args args({"lab99"});
  ASSERT_TRUE(driver.parse(args.argc(), args.argv(), kVariants));
  FakeVariant wrong{true}, right{false};
  for (FakeVariant* fake : {&wrong, &right}) {
    fake->input = 3.0f;
    fake->launch();
    ASSERT_EQ(fake->output, 6.0f);  // the check before timing passes for both
  }
  const std::string wrong_name = "lab99/sum_atomic/n1", right_name = "lab99/sum_tree/n1";
  driver.add_timed({wrong_name,
                    [&](cudaStream_t) { wrong.launch(); },
                    0.0,
                    4.0,
                    {},
                    [&] { return recheck_of(wrong, 5.0f); }});
  driver.add_timed({right_name,
                    [&](cudaStream_t) { right.launch(); },
                    0.0,
                    4.0,
                    {},
                    [&] { return recheck_of(right, 5.0f); }});
  driver.add_timed({"reference/copy/n1", [](cudaStream_t) {}, 0.0, 4.0, {}, {}});
  for (int timed = 0; timed < 3; ++timed) wrong.launch(), right.launch();  // what timing does

  std::ostringstream out;
  const std::map<std::string, Recheck>& rechecks = driver.session().recheck_all(out);
  ASSERT_EQ(rechecks.size(), 2u);  // the reference has none
  EXPECT_FALSE(rechecks.at(wrong_name).passed);
  EXPECT_TRUE(rechecks.at(right_name).passed);
  EXPECT_NE(out.str().find(wrong_name + ": got 0.000000: FAIL (after timing)"), std::string::npos)
      << out.str();
  EXPECT_EQ(driver.check_cell(CheckOutcome::kPassed, wrong_name), "FAIL after timing");
  EXPECT_EQ(driver.check_cell(CheckOutcome::kPassed, right_name), "PASS");
  EXPECT_EQ(driver.check_cell("reference", "reference/copy/n1"), "reference");
  EXPECT_EQ(driver.check_cell(CheckOutcome::kPassed, right_name, "needs sm_90"), "skipped");
  EXPECT_EQ(driver.exit_code(true), kExitFailed);  // every check before timing passed: not enough
}

TEST(RunProtocol, ARecheckThatThrowsFailsWithWhatItThrew) {
  TimedSession session{TimingOptions{}};
  session.add({"lab99/x/n1",
               [](cudaStream_t) {},
               0.0,
               0.0,
               {},
               []() -> Recheck { throw std::runtime_error("an illegal address"); }});
  std::ostringstream out;
  session.recheck_all(out);
  ASSERT_NE(session.recheck_of("lab99/x/n1"), nullptr);
  EXPECT_FALSE(session.rechecks_passed());
  EXPECT_EQ(session.recheck_of("lab99/x/n1")->message, "the recheck failed: an illegal address");
}

TEST(RunProtocol, PassingRechecksLeaveTheVerdictToTheChecks) {
  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app);
  driver.add_timed({"lab99/x/n1",
                    [](cudaStream_t) {},
                    0.0,
                    0.0,
                    {},
                    [] {
                      return Recheck{true, "PASS"};
                    }});
  std::ostringstream out;
  driver.session().recheck_all(out);
  EXPECT_EQ(driver.exit_code(true), kExitOk);
  EXPECT_EQ(driver.exit_code(false), kExitFailed);
}

TEST(RunProtocol, RecheckAfterMoreTimingInTheSameBuffers) {
  // Lab 09 times per layer between time() and recheck(): the recheck sees what that timing left.
  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app);
  Args args({"lab99"});
  ASSERT_TRUE(driver.parse(args.argc(), args.argv(), kVariants));
  FakeVariant wrong{true};
  wrong.input = 3.0f;
  wrong.launch();  // its check
  driver.add_timed({"lab99/sum_atomic/n1",
                    [&](cudaStream_t) { wrong.launch(); },
                    0.0,
                    4.0,
                    {},
                    [&] { return recheck_of(wrong, 5.0f); }});
  wrong.launch();  // the per-layer timing after time()
  ::testing::internal::CaptureStdout();
  driver.recheck();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("lab99/sum_atomic/n1: got 0.000000: FAIL (after timing)"), std::string::npos)
      << out;
  EXPECT_EQ(driver.check_cell(CheckOutcome::kPassed, "lab99/sum_atomic/n1"), "FAIL after timing");
  EXPECT_EQ(driver.exit_code(true), kExitFailed);
}

TEST(Seed, ALabsOwnSeedIsTheRunsSeed) {
  CLI::App app;
  DriverFlags flags;
  flags.seed_flag = false;  // the DCGAN's --seed is among its input flags
  LabDriver driver({"lab99", "a test lab"}, app, flags);
  Args args({"lab99"});
  ASSERT_TRUE(driver.parse(args.argc(), args.argv(), kVariants));
  driver.use_seed(4242);
  EXPECT_EQ(driver.seed(), 4242u);
  EXPECT_EQ(driver.seed_for("recheck"), derive_seed(4242, "recheck"));
  EXPECT_NE(driver.seed_for("recheck"), driver.seed_for("check"));
}

// A ladder of fake variants on host memory, through check_ladder and add_ladder_runs as a lab's
// driver uses them: one right every time, one right on its first call only.
struct FakeArgs {
  float* input;
  float* output;
};
struct FakeRung {
  const char* name;
  const char* summary;
  void (*launch)(const FakeArgs& args, cudaStream_t stream);
};
int calls_of_the_wrong_one = 0;
void doubles(const FakeArgs& args, cudaStream_t) {
  *args.output = 2.0f * *args.input;
}
void doubles_once(const FakeArgs& args, cudaStream_t) {
  *args.output = calls_of_the_wrong_one++ <= 0 ? 2.0f * *args.input : 0.0f;
}
void writes_nothing(const FakeArgs&, cudaStream_t) {}
const FakeRung kRungs[] = {{"right", "", doubles},
                           {"wrong_after_first_call", "", doubles_once},
                           {"todo", "", writes_nothing}};

struct FakeReport {
  CheckOutcome outcome = CheckOutcome::kFailed;
  std::string message;
};

// A check on fresh memory, the output poisoned (NaN) first.
FakeReport check_fake(const FakeRung& rung, float* input, float* output, float value) {
  *input = value;
  *output = std::nanf("");
  rung.launch({input, output}, nullptr);
  if (std::isnan(*output))
    return {CheckOutcome::kNotImplemented, std::string(rung.name) + ": TODO"};
  const bool right = *output == 2.0f * value;
  return {right ? CheckOutcome::kPassed : CheckOutcome::kFailed,
          std::string(rung.name) + (right ? ": PASS" : ": FAIL")};
}

struct FakeVerifier {
  float value;
  FakeReport check(const FakeRung& rung) {
    float input = 0.0f, output = 0.0f;
    return check_fake(rung, &input, &output, value);
  }
};

TEST(Ladder, ChecksTheChosenVariantsWithEveryVerifier) {
  calls_of_the_wrong_one = -1;  // its first two calls are right: both checks pass
  FakeVerifier timed{3.0f}, odd{-7.5f};
  bool all_passed = true;
  std::ostringstream out;
  const auto checked = check_ladder(out, {}, std::span<const FakeRung>(kRungs),
                                    std::vector{&timed, &odd}, all_passed);
  ASSERT_EQ(checked.size(), 3u);
  EXPECT_TRUE(checked[0].passed());
  EXPECT_TRUE(checked[1].passed());
  EXPECT_EQ(checked[2].outcome, CheckOutcome::kNotImplemented);
  EXPECT_FALSE(all_passed);  // a TODO variant fails the run
  EXPECT_EQ(out.str(),
            "  right: PASS\n  right: PASS\n  wrong_after_first_call: PASS\n"
            "  wrong_after_first_call: PASS\n  todo: TODO\n  todo: TODO\n");

  bool chosen_passed = true;
  std::ostringstream skipped;
  const auto only = check_ladder<FakeReport, FakeRung>(
      skipped, {"right", "todo"}, kRungs, {[&](const FakeRung& r) { return timed.check(r); }},
      chosen_passed, [](const FakeRung& r) { return r.name[0] == 't' ? "needs sm_90" : ""; });
  ASSERT_EQ(only.size(), 2u);
  EXPECT_EQ(only[1].skipped, "needs sm_90");
  EXPECT_FALSE(only[1].passed());
  EXPECT_TRUE(chosen_passed);  // a variant that cannot run here does not fail the run
  EXPECT_NE(skipped.str().find("  todo: skipped: needs sm_90\n"), std::string::npos);
}

TEST(Ladder, AVariantWrongAfterItsFirstCallFailsItsRecheckInTheTimedBuffers) {
  calls_of_the_wrong_one = 0;
  FakeVerifier timed{3.0f};
  bool all_passed = true;
  std::ostringstream out;
  const auto checked =
      check_ladder(out, {}, std::span<const FakeRung>(kRungs), std::vector{&timed}, all_passed);
  ASSERT_TRUE(checked[1].passed());  // right when checked

  CLI::App app;
  LabDriver driver({"lab99", "a test lab"}, app);
  float timed_input = 1.0f, timed_output = 0.0f;  // the timed buffers
  std::vector<FakeArgs> timed_args;
  add_ladder_runs(
      driver, std::span<const FakeRung>(kRungs), checked, "n1", 2.0, 8.0,
      [&](const FakeRung&) {
        return FakeArgs{&timed_input, &timed_output};
      },
      [&](const FakeRung& rung, const FakeArgs& args, std::uint64_t seed) {
        timed_args.push_back(args);
        return check_fake(rung, args.input, args.output, static_cast<float>(seed % 1000) + 0.5f);
      });
  driver.session().recheck_all(out);
  ASSERT_EQ(timed_args.size(), 2u);  // the TODO variant was not timed, so not rechecked
  for (const FakeArgs& args : timed_args) {
    EXPECT_EQ(args.input, &timed_input);  // in the buffers it was timed in
    EXPECT_EQ(args.output, &timed_output);
  }
  ASSERT_NE(driver.session().recheck_of("lab99/right/n1"), nullptr);
  EXPECT_TRUE(driver.session().recheck_of("lab99/right/n1")->passed);
  ASSERT_NE(driver.session().recheck_of("lab99/wrong_after_first_call/n1"), nullptr);
  EXPECT_FALSE(driver.session().recheck_of("lab99/wrong_after_first_call/n1")->passed);
  EXPECT_EQ(driver.session().recheck_of("lab99/todo/n1"), nullptr);
  EXPECT_EQ(driver.check_cell(checked[1].outcome, "lab99/wrong_after_first_call/n1"),
            "FAIL after timing");
  EXPECT_EQ(driver.exit_code(true), kExitFailed);
}

TEST(CombineOutcomes, BothMustPass) {
  using O = CheckOutcome;
  EXPECT_EQ(combine_outcomes(O::kPassed, O::kPassed), O::kPassed);
  EXPECT_EQ(combine_outcomes(O::kNotImplemented, O::kNotImplemented), O::kNotImplemented);
  EXPECT_EQ(combine_outcomes(O::kPassed, O::kNotImplemented), O::kFailed);
  EXPECT_EQ(combine_outcomes(O::kNotImplemented, O::kPassed), O::kFailed);
  EXPECT_EQ(combine_outcomes(O::kPassed, O::kFailed), O::kFailed);
}

TEST(DriverRecord, ThePathTheFlagsName) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "lab_driver_test_rec";
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(record_output_args("", "lab12", "", "gpu").empty());
  const std::vector<std::string> args =
      record_output_args(dir.string(), "lab12", "", "nvidia-h200");
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0], "--benchmark_out=" + dir.string() + "/lab12_nvidia-h200.json");
  EXPECT_EQ(args[1], "--benchmark_out_format=json");
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  EXPECT_EQ(record_output_args(dir.string(), "lab12", "quick", "gpu")[0],
            "--benchmark_out=" + dir.string() + "/lab12_quick_gpu.json");
  EXPECT_EQ(record_file_of({"prog", "--benchmark_out=a.json"}), "a.json");
  EXPECT_EQ(record_file_of({"prog", "--benchmark_out=a.csv", "--benchmark_out_format=csv"}), "");
  EXPECT_EQ(record_file_of({"prog", "--benchmark_format=json"}), "");
  std::filesystem::remove_all(dir);
}

TEST(DriverRecord, TheRechecksAreTheOnlyKeyAdded) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "lab_driver_test_record.json";
  const nlohmann::json written = {
      {"context", {{"device", "NVIDIA H200"}, {"command", "lab12 --n 1024"}, {"seed", "5"}}},
      {"benchmarks",
       {{{"name", "lab12/sum_atomic/sum_n1024_median"},
         {"run_name", "lab12/sum_atomic/sum_n1024"},
         {"aggregate_name", "median"},
         {"gbytes_per_s", 100.0}}}}};
  std::ofstream(path) << written.dump(2);
  add_rechecks_to_record(path.string(), {{"lab12/sum_atomic/sum_n1024", {false, "got 3: FAIL"}}});
  nlohmann::json read;
  std::ifstream(path) >> read;
  std::vector<std::string> keys;
  for (const auto& [key, value] : read.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"benchmarks", "context", "rechecks"}));
  EXPECT_EQ(read["context"], written["context"]);
  EXPECT_EQ(read["benchmarks"], written["benchmarks"]);
  EXPECT_EQ(read["rechecks"]["lab12/sum_atomic/sum_n1024"]["passed"], false);
  EXPECT_EQ(read["rechecks"]["lab12/sum_atomic/sum_n1024"]["message"], "got 3: FAIL");
  std::ofstream(path) << "not json";
  EXPECT_THROW(add_rechecks_to_record(path.string(), {}), std::runtime_error);
  std::filesystem::remove(path);
}

TEST(DriverRecord, NonFiniteStatisticsReadAsNull) {
  EXPECT_EQ(with_non_finite_as_null(R"({"cv": NaN, "a": -Infinity, "b": [Infinity, -NaN, 1.5]})"),
            R"({"cv": null, "a": null, "b": [null, null, 1.5]})");
  EXPECT_EQ(with_non_finite_as_null(R"({"name": "NaN \" Infinity", "x": 2})"),
            R"({"name": "NaN \" Infinity", "x": 2})");
  // Google Benchmark's own output for a counter that is 0 in every repetition.
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "lab_driver_test_nan_record.json";
  std::ofstream(path) << R"({"context": {}, "benchmarks": [{"name": "lab08/coarsen1/case1_cv",)"
                      << R"( "spill_bytes": NaN, "real_time": 0.01}]})";
  add_rechecks_to_record(path.string(), {{"lab08/coarsen1/case1", {true, "PASS"}}});
  nlohmann::json read;
  std::ifstream(path) >> read;
  EXPECT_TRUE(read["benchmarks"][0]["spill_bytes"].is_null());
  EXPECT_EQ(read["benchmarks"][0]["real_time"], 0.01);
  EXPECT_EQ(read["rechecks"]["lab08/coarsen1/case1"]["passed"], true);
  std::filesystem::remove(path);
}

// Lab 10's clock: wall-clock runs over several workers, a fixed count (every MPI rank the same).
TEST(HostTiming, TheMedianOfTheTimedRunsAfterOneWarmUp) {
  std::vector<double> seconds = {100.0, 4.0, 1.0, 2.0};  // the warm-up first: left out
  std::size_t calls = 0;
  const HostTimedRun run{"lab99/threads/n8x2g",
                         [&] { return seconds.at(calls++); },
                         {{"num", 8}, {"gpus", 2}},
                         {{"images_per_s", 8}},
                         {}};
  const HostMedian timed = time_on_host(run, 3);
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(timed.name, "lab99/threads/n8x2g");
  EXPECT_DOUBLE_EQ(timed.seconds, 2.0);
  EXPECT_EQ(timed.repetitions, 3);
  EXPECT_DOUBLE_EQ(timed.fields.at("gpus"), 2.0);
  EXPECT_DOUBLE_EQ(timed.per_second.at("images_per_s"), 4.0);
}

TEST(HostTiming, ARunWrongOnlyAfterItsFirstCallsFailsItsRecheckAndTheRun) {
  FakeVariant wrong{true}, right{false};
  TimedSession session(TimingOptions{2, 0.0, 0});
  for (FakeVariant* fake : {&wrong, &right}) {
    fake->input = 3.0f;
    fake->launch();
    ASSERT_EQ(fake->output, 6.0f);  // checked before timing: both right
    session.add_host({fake == &wrong ? "lab99/wrong/n1" : "lab99/right/n1",
                      [fake] {
                        fake->launch();
                        return 1.0;
                      },
                      {},
                      {},
                      [fake] { return recheck_of(*fake, 5.0f); }});
  }
  session.add_host({"lab99/reference/n1", [] { return 1.0; }, {}, {}, {}});
  const std::vector<HostMedian> medians = session.time_on_host();
  ASSERT_EQ(medians.size(), 3u);
  EXPECT_EQ(medians[0].name, "lab99/wrong/n1");
  std::ostringstream out;
  const std::map<std::string, Recheck>& rechecks = session.recheck_all(out);
  ASSERT_EQ(rechecks.size(), 2u);  // the reference has none
  EXPECT_FALSE(rechecks.at("lab99/wrong/n1").passed);
  EXPECT_TRUE(rechecks.at("lab99/right/n1").passed);
  EXPECT_NE(out.str().find("lab99/wrong/n1: got 0.000000: FAIL (after timing)"), std::string::npos)
      << out.str();
  EXPECT_FALSE(session.rechecks_passed());
  EXPECT_EQ(check_cell(CheckOutcome::kPassed, session.recheck_of("lab99/wrong/n1")),
            "FAIL after timing");
}

TEST(HostTiming, TheRecordHasGoogleBenchmarksShapeAndTheRechecks) {
  const HostMedian cell{
      "lab10/threads/n1000x2g", 0.5, 5, {{"num", 1000}, {"gpus", 2}}, {{"images_per_s", 2000.0}}};
  const nlohmann::json record =
      host_record({{"device", "NVIDIA H200"}, {"seed", "7"}}, {cell},
                  {{"lab10/threads/n1000x2g", {false, "images 0 999: FAIL"}}});
  std::vector<std::string> keys;
  for (const auto& [key, value] : record.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"benchmarks", "context", "rechecks"}));
  EXPECT_EQ(record["context"]["seed"], "7");
  ASSERT_EQ(record["benchmarks"].size(), 1u);
  const nlohmann::json& entry = record["benchmarks"][0];
  EXPECT_EQ(entry, (nlohmann::json{{"name", "lab10/threads/n1000x2g_median"},
                                   {"run_name", "lab10/threads/n1000x2g"},
                                   {"run_type", "aggregate"},
                                   {"aggregate_name", "median"},
                                   {"repetitions", 5},
                                   {"real_time", 500.0},
                                   {"time_unit", "ms"},
                                   {"num", 1000},
                                   {"gpus", 2},
                                   {"images_per_s", 2000.0}}));
  EXPECT_TRUE(entry["num"].is_number_integer());  // a count stays an integer
  EXPECT_EQ(record["rechecks"]["lab10/threads/n1000x2g"]["passed"], false);
  EXPECT_EQ(record["rechecks"]["lab10/threads/n1000x2g"]["message"], "images 0 999: FAIL");
}

TEST(DriverFlags, AHostTimedLabHasNoMinTimeAndItsOwnRepetitions) {
  CLI::App app;
  DriverOptions options;
  options.timing.repetitions = 5;
  DriverFlags flags;
  flags.lab_id = "lab99_threads";
  flags.min_time_flag = false;
  add_driver_flags(app, options, flags);
  Args none({"lab99"});
  parse_flags(app, none.argc(), none.argv());
  EXPECT_EQ(options.timing.repetitions, 5);
  EXPECT_EQ(app.get_option("--repetitions")->get_default_str(), "5");
  EXPECT_EQ(parse_error({"lab99", "--min-time", "1"}, flags),
            "unknown flag '--min-time' (see --help)");
}

}  // namespace
}  // namespace cudalabs
