#include "grader/referee/problem_flags.h"

#include <algorithm>
#include <stdexcept>

namespace grader::referee {

std::int64_t flag_value(const std::vector<std::string>& args, const std::string& flag,
                        std::int64_t fallback, std::int64_t low, std::int64_t high) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != flag) continue;
    if (i + 1 >= args.size()) throw std::invalid_argument(flag + " needs a value");
    try {
      std::size_t used = 0;
      const long long value = std::stoll(args[i + 1], &used);
      if (used == args[i + 1].size() && value >= low && value <= high) return value;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument(flag + ": '" + args[i + 1] + "' is not a whole number from " +
                                std::to_string(low) + " to " + std::to_string(high));
  }
  return fallback;
}

std::string flag_choice(const std::vector<std::string>& args, const std::string& flag,
                        const std::vector<std::string>& choices) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != flag) continue;
    if (i + 1 < args.size() &&
        std::find(choices.begin(), choices.end(), args[i + 1]) != choices.end())
      return args[i + 1];
    std::string known;
    for (const std::string& choice : choices) known += (known.empty() ? "" : ", ") + choice;
    throw std::invalid_argument(flag + " takes one of " + known);
  }
  return choices.at(0);
}

}  // namespace grader::referee
