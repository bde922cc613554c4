#include "common/cli.h"

#include "common/device_info.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>

namespace cudalabs {

namespace {

[[noreturn]] void bad_value(std::string_view flag, std::string_view text,
                            const std::string& expected) {
  throw FlagError(std::string(flag) + ": invalid value '" + std::string(text) + "' (expected " +
                  expected + ")");
}

std::string range_text(const char* what, long long min, long long max) {
  std::ostringstream text;
  text << what << " from " << min << " to " << max;
  return text.str();
}

std::string& running_program() {
  static std::string name = "program";
  return name;
}

}  // namespace

const std::string& program_name() {
  return running_program();
}

std::string program_name_of(std::string_view argv0) {
  const std::size_t slash = argv0.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1);
  return name.empty() ? "program" : std::string(name);
}

long long parse_integer_flag(std::string_view flag, std::string_view text, long long min,
                             long long max) {
  long long value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && *first == '+') ++first;
  const auto [end, error] = std::from_chars(first, last, value);
  if (text.empty() || error != std::errc() || end != last || value < min || value > max) {
    bad_value(flag, text, range_text("an integer", min, max));
  }
  return value;
}

double parse_number_flag(std::string_view flag, std::string_view text, double min, double max) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = copy.empty() ? 0.0 : std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value) || value < min ||
      value > max) {
    std::ostringstream expected;
    expected << "a finite number from " << min << " to " << max;
    bad_value(flag, text, expected.str());
  }
  return value;
}

namespace {
std::string long_name(const std::string& names) {
  // "-m,--rows" -> "--rows"; "--m" -> "--m".
  const std::size_t at = names.rfind("--");
  return at == std::string::npos ? names : names.substr(at);
}
}  // namespace

CLI::Option* add_integer_flag(CLI::App& app, const std::string& names, int& target, long long min,
                              long long max, const std::string& help) {
  // The value arrives as text so that the message for "abc" and for "0" is ours and alike.
  const std::string flag = long_name(names);
  auto* option = app.add_option_function<std::string>(
      names,
      [&target, flag, min, max](const std::string& text) {
        target = static_cast<int>(parse_integer_flag(flag, text, min, max));
      },
      help);
  option->type_name(kIntegerValueName);
  option->default_str(std::to_string(target));
  return option;
}

namespace {

template <typename Number>
CLI::Option* add_number(CLI::App& app, const std::string& names, Number& target, double min,
                        double max, const std::string& help) {
  const std::string flag = long_name(names);
  auto* option = app.add_option_function<std::string>(
      names,
      [&target, flag, min, max](const std::string& text) {
        target = static_cast<Number>(parse_number_flag(flag, text, min, max));
      },
      help);
  std::ostringstream shown;
  shown << target;
  option->type_name(kNumberValueName);
  option->default_str(shown.str());
  return option;
}
}  // namespace

CLI::Option* add_number_flag(CLI::App& app, const std::string& names, float& target, double min,
                             double max, const std::string& help) {
  return add_number(app, names, target, min, max, help);
}

CLI::Option* add_number_flag(CLI::App& app, const std::string& names, double& target, double min,
                             double max, const std::string& help) {
  return add_number(app, names, target, min, max, help);
}

namespace {

// CLI11's own names of value types: an option showing one was registered without a value name.
bool shows_a_type_not_a_name(const std::string& type_name) {
  static const std::set<std::string> types = {"TEXT",    "INT",  "UINT", "FLOAT",
                                              "BOOLEAN", "CHAR", "ENUM", "COMPLEX"};
  std::string word;
  for (const char c : type_name + " ") {
    if (std::isupper(static_cast<unsigned char>(c))) {
      word += c;
    } else {
      if (types.count(word) > 0) return true;
      word.clear();
    }
  }
  return type_name.empty();
}

void require_value_names(CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_expected_max() == 0) continue;  // a flag: it takes no value
    if (shows_a_type_not_a_name(option->get_type_name())) {
      throw std::logic_error(option->get_name() + ": no value name (CLI::Option::type_name); the " +
                             "help would show '" + option->get_type_name() + "'");
    }
  }
}

// The app's help flag anywhere: asked for, it is answered whatever else the arguments hold.
bool asks_for_help(const CLI::App& app, int argc, char** argv) {
  const CLI::Option* help = app.get_help_ptr();
  for (int i = 1; help != nullptr && i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return false;  // what follows is not a flag
    if (arg.size() > 1 && arg[0] == '-' && help->check_name(arg)) return true;
  }
  return false;
}

// The first argument neither `app` nor `passes` takes, as one line, or nothing.
void refuse_unknown(const std::vector<std::string>& remaining, const PassThrough& passes) {
  for (const std::string& argument : remaining) {
    if (passes && passes(argument)) continue;
    if (!argument.empty() && argument[0] == '-')
      throw FlagError("unknown flag '" + argument + "' (see --help)");
    throw FlagError("unexpected argument '" + argument + "' (see --help)");
  }
}

}  // namespace

std::vector<std::string> parse_flags(CLI::App& app, int argc, char** argv,
                                     const PassThrough& passes) {
  app.name(program_name());
  require_value_names(app);
  if (asks_for_help(app, argc, argv)) {
    std::cout << app.help();
    throw HelpShown();
  }
  // Extras are allowed so that CLI11 collects them instead of stopping at the first; they are
  // judged here, and an unknown flag is named before what CLI11 found wrong (its complaint may be
  // a consequence: a mistyped required flag is "missing").
  app.allow_extras();
  try {
    app.parse(argc, argv);
  } catch (...) {
    refuse_unknown(app.remaining(), passes);
    throw;
  }
  refuse_unknown(app.remaining(), passes);
  std::vector<std::string> rest;
  rest.emplace_back(argc > 0 ? argv[0] : program_name());
  for (const std::string& extra : app.remaining()) rest.push_back(extra);
  return rest;
}

CaughtError catch_error(const std::function<void()>& body) {
  try {
    body();
    return {};
  } catch (const HelpShown&) {
    return {kExitOk, "", true};
  } catch (const CLI::ParseError& error) {
    return {kExitBadInput, error.what()};
  } catch (const std::invalid_argument& error) {
    return {kExitBadInput, error.what()};
  } catch (const NoGpuError& error) {
    return {kExitFailed, error.what()};
  } catch (const std::exception& error) {
    return {kExitFailed, std::string("error: ") + error.what()};
  }
}

void print_error_line(const std::string& message) {
  std::cerr << program_name() << ": " << message << "\n";
}

int guarded_main(int argc, char** argv, const std::function<int()>& body) {
  running_program() = program_name_of(argc > 0 && argv[0] != nullptr ? argv[0] : "");
  int code = kExitOk;
  const CaughtError caught = catch_error([&] { code = body(); });
  if (caught.help) return kExitOk;
  if (caught.code == kExitOk) return code;
  print_error_line(caught.message);
  return caught.code;
}

}  // namespace cudalabs
