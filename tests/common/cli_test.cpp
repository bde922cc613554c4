#include "common/cli.h"

#include "common/device_info.h"
#include "tests/support/command_line.h"

#include <gtest/gtest.h>

namespace cudalabs {
namespace {

std::string message_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const FlagError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ParseIntegerFlag, AcceptsIntegersInRange) {
  EXPECT_EQ(parse_integer_flag("--m", "17", 1, 100), 17);
  EXPECT_EQ(parse_integer_flag("--m", "+5", 1, 100), 5);
  EXPECT_EQ(parse_integer_flag("--m", "100", 1, 100), 100);
}

TEST(ParseIntegerFlag, RejectsWithFlagAndValue) {
  EXPECT_EQ(message_of([] { parse_integer_flag("--m", "0", 1, 100); }),
            "--m: invalid value '0' (expected an integer from 1 to 100)");
  EXPECT_EQ(message_of([] { parse_integer_flag("--k", "-3", 1, 100); }),
            "--k: invalid value '-3' (expected an integer from 1 to 100)");
  EXPECT_EQ(message_of([] { parse_integer_flag("--n", "abc", 1, 100); }),
            "--n: invalid value 'abc' (expected an integer from 1 to 100)");
  EXPECT_NE(message_of([] { parse_integer_flag("--n", "12x", 1, 100); }), "no error");
  EXPECT_NE(message_of([] { parse_integer_flag("--n", "", 1, 100); }), "no error");
  EXPECT_NE(message_of([] { parse_integer_flag("--n", "1.5", 1, 100); }), "no error");
  EXPECT_NE(message_of([] { parse_integer_flag("--n", "99999999999999999999", 1, 100); }),
            "no error");
}

TEST(ParseNumberFlag, AcceptsFiniteAndRejectsTheRest) {
  EXPECT_DOUBLE_EQ(parse_number_flag("--alpha", "-1.5", -10, 10), -1.5);
  EXPECT_DOUBLE_EQ(parse_number_flag("--alpha", "2e-3", -10, 10), 2e-3);
  for (const char* bad : {"nan", "inf", "x", "", "1.5.2", "11"}) {
    const std::string message = message_of([bad] { parse_number_flag("--alpha", bad, -10, 10); });
    EXPECT_NE(message.find("--alpha: invalid value '" + std::string(bad) + "'"), std::string::npos)
        << message;
  }
}

using cudalabs::testing::Args;

std::string flag_error_of(CLI::App& app, Args args, const PassThrough& passes = {}) {
  return message_of([&] { parse_flags(app, args.argc(), args.argv(), passes); });
}

TEST(ParseFlags, LetsThroughOnlyWhatPassesAccepts) {
  CLI::App app;
  int m = 4;
  add_integer_flag(app, "--m", m, 1, 100, "rows");
  const auto benchmark = [](const std::string& a) { return a.rfind("--benchmark_", 0) == 0; };
  Args args({"prog", "--m", "9", "--benchmark_format=json"});
  const std::vector<std::string> rest = parse_flags(app, args.argc(), args.argv(), benchmark);
  EXPECT_EQ(m, 9);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[1], "--benchmark_format=json");

  CLI::App strict;
  add_integer_flag(strict, "--m", m, 1, 100, "rows");
  EXPECT_EQ(flag_error_of(strict, Args({"prog", "--m", "0"})),
            "--m: invalid value '0' (expected an integer from 1 to 100)");
}

TEST(ParseFlags, RefusesEveryUnknownArgumentByName) {
  int m = 4;
  for (const char* unknown : {"--bogus", "-x", "--benchmark_format=json", "--mm"}) {
    CLI::App app;
    add_integer_flag(app, "--m", m, 1, 100, "rows");
    EXPECT_EQ(flag_error_of(app, Args({"prog", "--m", "3", unknown})),
              "unknown flag '" + std::string(unknown) + "' (see --help)");
  }
  CLI::App app;
  add_integer_flag(app, "--m", m, 1, 100, "rows");
  EXPECT_EQ(flag_error_of(app, Args({"prog", "stray"})),
            "unexpected argument 'stray' (see --help)");
  CLI::App benchmark;
  EXPECT_EQ(flag_error_of(benchmark, Args({"prog", "--bogus", "--benchmark_x=1"}),
                          [](const std::string& a) { return a.rfind("--benchmark_", 0) == 0; }),
            "unknown flag '--bogus' (see --help)");
}

TEST(ParseFlags, NamesAnUnknownFlagBeforeOtherComplaints) {
  // A mistyped required flag is "missing" to CLI11 and a bad value throws from its callback: the
  // unknown flag is the cause, so it is what the line names.
  std::string shapes;
  CLI::App required;
  required.add_option("--shapes", shapes, "problems")->required()->type_name("SHAPE,...");
  EXPECT_EQ(flag_error_of(required, Args({"prog", "--shape", "64"})),
            "unknown flag '--shape' (see --help)");
  int m = 4;
  CLI::App bad_value;
  add_integer_flag(bad_value, "--m", m, 1, 100, "rows");
  EXPECT_EQ(flag_error_of(bad_value, Args({"prog", "--m", "0", "--nosuch"})),
            "unknown flag '--nosuch' (see --help)");
}

TEST(ParseFlags, AnswersHelpFirstWithValueNames) {
  std::string shapes, output;
  int m = 4;
  double alpha = 1.0;
  bool quiet = false;
  CLI::App app{"Test program"};
  app.add_option("--shapes", shapes, "problems")->required()->type_name("SHAPE,...");
  app.add_option("--output", output, "where")->type_name("FILE");
  add_integer_flag(app, "--m", m, 1, 100, "rows");
  add_number_flag(app, "--alpha", alpha, -1.0, 1.0, "scale");
  app.add_flag("--quiet", quiet, "say less");
  // --help wins over a missing required flag, a bad value and an unknown flag alike.
  Args args({"build/labs/prog", "--m", "0", "--nosuch", "--help"});
  ::testing::internal::CaptureStdout();
  EXPECT_THROW(parse_flags(app, args.argc(), args.argv()), HelpShown);
  const std::string help = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(help.find("Usage: " + program_name()), std::string::npos) << help;
  for (const char* shown : {"--shapes SHAPE,...", "--output FILE", "--m N", "--alpha X"})
    EXPECT_NE(help.find(shown), std::string::npos) << shown << " not in\n" << help;
  EXPECT_EQ(help.find("TEXT"), std::string::npos) << help;
}

TEST(ParseFlags, RefusesAnOptionWithoutValueName) {
  std::string output;
  CLI::App app;
  app.add_option("--output", output, "where");  // would show TEXT
  Args args({"prog"});
  EXPECT_THROW(parse_flags(app, args.argc(), args.argv()), std::logic_error);
  std::vector<int> sizes;
  CLI::App typed;
  typed.add_option("--sizes", sizes, "sizes");  // would show INT
  EXPECT_THROW(parse_flags(typed, args.argc(), args.argv()), std::logic_error);
}

TEST(ProgramName, IsTheFileNameOfArgv0) {
  EXPECT_EQ(program_name_of("build/labs/lab09"), "lab09");
  EXPECT_EQ(program_name_of("/abs/path/dcgan_multi_gpu"), "dcgan_multi_gpu");
  EXPECT_EQ(program_name_of("lab01_solution"), "lab01_solution");
  EXPECT_EQ(program_name_of(""), "program");
  EXPECT_EQ(program_name_of("dir/"), "program");
}

TEST(GuardedMain, MapsErrorsToExitCodes) {
  Args args({"some/dir/t"});
  EXPECT_EQ(guarded_main(args.argc(), args.argv(), [] { return 0; }), kExitOk);
  EXPECT_EQ(guarded_main(args.argc(), args.argv(), []() -> int { throw FlagError("--m: bad"); }),
            kExitBadInput);
  EXPECT_EQ(
      guarded_main(args.argc(), args.argv(), []() -> int { throw std::invalid_argument("bad"); }),
      kExitBadInput);
  EXPECT_EQ(
      guarded_main(args.argc(), args.argv(), []() -> int { throw std::runtime_error("broken"); }),
      kExitFailed);
  EXPECT_EQ(guarded_main(args.argc(), args.argv(), []() -> int { throw HelpShown(); }), kExitOk);
  EXPECT_EQ(guarded_main(args.argc(), args.argv(), [] { return kExitFailed; }), kExitFailed);
}

TEST(GuardedMain, NamesTheProgramByArgv0) {
  Args args({"build/labs/lab09"});
  ::testing::internal::CaptureStderr();
  const int code = guarded_main(args.argc(), args.argv(), []() -> int {
    EXPECT_EQ(program_name(), "lab09");
    throw FlagError("--num: invalid value '0'");
  });
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "lab09: --num: invalid value '0'\n");
  EXPECT_EQ(code, kExitBadInput);
}

TEST(CatchError, GivesGuardedMainsCodeAndLine) {
  const CaughtError fine = catch_error([] {});
  EXPECT_EQ(fine.code, kExitOk);
  EXPECT_TRUE(fine.message.empty());
  EXPECT_FALSE(fine.help);
  const CaughtError flag = catch_error([] { throw FlagError("--m: bad"); });
  EXPECT_EQ(flag.code, kExitBadInput);
  EXPECT_EQ(flag.message, "--m: bad");
  const CaughtError input = catch_error([] { throw std::invalid_argument("n = 0 must be >= 1"); });
  EXPECT_EQ(input.code, kExitBadInput);
  EXPECT_EQ(input.message, "n = 0 must be >= 1");
  const CaughtError no_gpu = catch_error([] { throw NoGpuError("no CUDA GPU available"); });
  EXPECT_EQ(no_gpu.code, kExitFailed);
  EXPECT_EQ(no_gpu.message, "no CUDA GPU available");
  const CaughtError broken = catch_error([] { throw std::runtime_error("broken"); });
  EXPECT_EQ(broken.code, kExitFailed);
  EXPECT_EQ(broken.message, "error: broken");
  const CaughtError help = catch_error([] { throw HelpShown(); });
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_TRUE(help.help);
}

}  // namespace
}  // namespace cudalabs
