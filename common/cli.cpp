#include "common/cli.h"

#include "common/device_info.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
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

}  // namespace

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

std::vector<std::string> parse_flags(CLI::App& app, int argc, char** argv) {
  app.allow_extras();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    throw HelpShown();
  }
  std::vector<std::string> rest;
  rest.emplace_back(argc > 0 ? argv[0] : "program");
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

int guarded_main(const std::string& program, const std::function<int()>& body) {
  int code = kExitOk;
  const CaughtError caught = catch_error([&] { code = body(); });
  if (caught.help) return kExitOk;
  if (caught.code == kExitOk) return code;
  std::cerr << program << ": " << caught.message << "\n";
  return caught.code;
}

}  // namespace cudalabs
