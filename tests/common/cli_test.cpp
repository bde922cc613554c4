#include "common/cli.h"

#include "common/device_info.h"

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

TEST(ParseFlags, PassesBenchmarkFlagsThroughAndValidatesOurs) {
  CLI::App app;
  int m = 4;
  add_integer_flag(app, "--m", m, 1, 100, "rows");
  std::vector<std::string> args = {"prog", "--m", "9", "--benchmark_format=json"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  const std::vector<std::string> rest =
      parse_flags(app, static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(m, 9);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[1], "--benchmark_format=json");

  CLI::App strict;
  add_integer_flag(strict, "--m", m, 1, 100, "rows");
  std::vector<std::string> bad = {"prog", "--m", "0"};
  std::vector<char*> bad_argv;
  for (auto& a : bad) bad_argv.push_back(a.data());
  EXPECT_THROW(parse_flags(strict, 3, bad_argv.data()), FlagError);
}

TEST(GuardedMain, MapsErrorsToExitCodes) {
  EXPECT_EQ(guarded_main("t", [] { return 0; }), kExitOk);
  EXPECT_EQ(guarded_main("t", []() -> int { throw FlagError("--m: bad"); }), kExitBadInput);
  EXPECT_EQ(guarded_main("t", []() -> int { throw std::invalid_argument("bad"); }), kExitBadInput);
  EXPECT_EQ(guarded_main("t", []() -> int { throw std::runtime_error("broken"); }), kExitFailed);
  EXPECT_EQ(guarded_main("t", []() -> int { throw HelpShown(); }), kExitOk);
  EXPECT_EQ(guarded_main("t", [] { return kExitFailed; }), kExitFailed);
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
