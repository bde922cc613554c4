/// @file cli.h
/// @brief Command-line flags (CLI11) with one-line errors, and the guarded main every program uses.
///
/// Flags are parsed by CLI11; Google Benchmark's own --benchmark_* flags pass through untouched.
/// A bad value gets one line naming the flag and the value, and exit code 2; no GPU gets one line
/// and exit code 1.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs {

/// A flag with a bad value; the message names the flag and the value.
class FlagError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Thrown by parse_flags after it printed the help for --help; guarded_main exits 0 on it.
struct HelpShown {};

/// Exit codes shared by every program of the suite.
enum ExitCode : int {
  kExitOk = 0,        ///< everything ran and passed
  kExitFailed = 1,    ///< a check failed, a kernel is not implemented yet, or no GPU
  kExitBadInput = 2,  ///< a flag or an input file was rejected
};

/// Parses `text` as a whole decimal integer in [min, max]; throws FlagError otherwise, e.g.
/// "--m: invalid value '0' (expected an integer from 1 to 65536)".
long long parse_integer_flag(std::string_view flag, std::string_view text, long long min,
                             long long max);

/// Parses `text` as a finite decimal number in [min, max]; throws FlagError otherwise.
double parse_number_flag(std::string_view flag, std::string_view text, double min, double max);

/// Registers an int flag checked by parse_integer_flag.
CLI::Option* add_integer_flag(CLI::App& app, const std::string& names, int& target, long long min,
                              long long max, const std::string& help);

/// Registers a float flag checked by parse_number_flag.
CLI::Option* add_number_flag(CLI::App& app, const std::string& names, float& target, double min,
                             double max, const std::string& help);

/// Registers a double flag checked by parse_number_flag.
CLI::Option* add_number_flag(CLI::App& app, const std::string& names, double& target, double min,
                             double max, const std::string& help);

/// Parses argv with `app`, which must allow extras. Returns the arguments CLI11 did not recognise
/// (Google Benchmark's flags), with argv[0] first. Prints the help and throws HelpShown for --help;
/// throws FlagError or CLI::ParseError for bad flags.
std::vector<std::string> parse_flags(CLI::App& app, int argc, char** argv);

/// What `body` left escaping, as guarded_main judges it, printed nowhere.
struct CaughtError {
  int code = kExitOk;   ///< the exit code: kExitOk when nothing escaped (or for --help)
  std::string message;  ///< the one line guarded_main prints after "program: "
  bool help = false;    ///< HelpShown escaped: --help was printed
};

/// Runs `body` and maps what escapes it the way guarded_main does, for callers that must decide
/// together before anyone prints (lab 10's MPI ranks).
CaughtError catch_error(const std::function<void()>& body);

/// Runs `body` and turns every escaping error into one line on stderr, prefixed with `program`,
/// and the matching exit code: HelpShown exits 0, bad flags and bad input exit 2, no GPU and other
/// failures exit 1.
int guarded_main(const std::string& program, const std::function<int()>& body);

}  // namespace cudalabs
