/// @file cli.h
/// @brief Command-line flags (CLI11) with one-line errors, and the guarded main every program uses.
///
/// Every program of the suite behaves alike on its command line, by construction:
/// - it names itself by its own executable name (program_name(): argv[0] as guarded_main got it),
///   in its help and at the start of every error line;
/// - --help (or -h), anywhere among the arguments, prints the help and exits 0 before anything
///   else happens;
/// - an argument it does not know is refused in one line naming it, exit code 2, before anything
///   else: only a program timed by Google Benchmark lets that library's --benchmark_* flags through
///   (parse_flags_with_benchmark, common/benchmark_support.h);
/// - every option that takes a value shows a value name in the help (`--size N`, `--output FILE`),
///   never CLI11's type (TEXT);
/// - a bad value gets one line naming the flag and the value, and exit code 2; no GPU gets one
///   line and exit code 1.
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

/// The running program's own name: the file name of the argv[0] guarded_main received ("lab09",
/// "dcgan", "lab01_solution"), "program" before guarded_main runs. Every line a program prints
/// about itself starts with it, so two programs built from one source name themselves apart.
const std::string& program_name();

/// The file name of a path as argv[0] gives it: "build/labs/lab09" -> "lab09".
std::string program_name_of(std::string_view argv0);

/// Parses `text` as a whole decimal integer in [min, max]; throws FlagError otherwise, e.g.
/// "--m: invalid value '0' (expected an integer from 1 to 65536)".
long long parse_integer_flag(std::string_view flag, std::string_view text, long long min,
                             long long max);

/// Parses `text` as a finite decimal number in [min, max]; throws FlagError otherwise.
double parse_number_flag(std::string_view flag, std::string_view text, double min, double max);

/// Value name of the integer flags in the help: `--size N`.
inline constexpr const char* kIntegerValueName = "N";
/// Value name of the real-number flags in the help: `--alpha X`.
inline constexpr const char* kNumberValueName = "X";

/// Registers an int flag checked by parse_integer_flag, shown as `names N`.
CLI::Option* add_integer_flag(CLI::App& app, const std::string& names, int& target, long long min,
                              long long max, const std::string& help);

/// Registers a float flag checked by parse_number_flag, shown as `names X`.
CLI::Option* add_number_flag(CLI::App& app, const std::string& names, float& target, double min,
                             double max, const std::string& help);

/// Registers a double flag checked by parse_number_flag, shown as `names X`.
CLI::Option* add_number_flag(CLI::App& app, const std::string& names, double& target, double min,
                             double max, const std::string& help);

/// Which arguments parse_flags lets through to the program rather than refusing them.
using PassThrough = std::function<bool(const std::string& argument)>;

/// Parses argv with `app`, before the program does anything else:
/// - names `app` after program_name() (the help's usage line);
/// - --help or -h anywhere (before a `--`): prints the help and throws HelpShown, whatever else the
///   arguments hold;
/// - the first argument `app` does not know and `passes` does not accept: FlagError
///   "unknown flag '--x' (see --help)" (or "unexpected argument 'x'" for a word), ahead of any
///   other complaint (a bad value, a missing required flag);
/// - a bad value: FlagError or CLI::ParseError naming the flag.
/// Returns argv[0], then the arguments `passes` let through, in order. Every option of `app` that
/// takes a value must have a value name (CLI::Option::type_name; the add_*_flag helpers give one):
/// std::logic_error otherwise, so that no help shows CLI11's TEXT.
std::vector<std::string> parse_flags(CLI::App& app, int argc, char** argv,
                                     const PassThrough& passes = {});

/// What `body` left escaping, as guarded_main judges it, printed nowhere.
struct CaughtError {
  int code = kExitOk;   ///< the exit code: kExitOk when nothing escaped (or for --help)
  std::string message;  ///< the one line guarded_main prints after "program: "
  bool help = false;    ///< HelpShown escaped: --help was printed
};

/// Runs `body` and maps what escapes it the way guarded_main does, for callers that must decide
/// together before anyone prints (lab 10's MPI ranks).
CaughtError catch_error(const std::function<void()>& body);

/// Prints `message` as the program's one error line: "program_name(): message".
void print_error_line(const std::string& message);

/// The main of every program: sets program_name() from argv[0], runs `body`, and turns every
/// escaping error into one line on stderr (print_error_line) and the matching exit code:
/// HelpShown exits 0, bad flags and bad input exit 2, no GPU and other failures exit 1.
int guarded_main(int argc, char** argv, const std::function<int()>& body);

}  // namespace cudalabs
