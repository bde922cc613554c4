/// @file grader/referee/problem_flags.h
/// @brief A lab's problem flags (the rubric's benchmark and probe arguments), read by its workload.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace grader::referee {

/// The whole number after `flag` in `args` (`fallback` when absent); std::invalid_argument naming
/// the flag when it is not one from `low` to `high`.
std::int64_t flag_value(const std::vector<std::string>& args, const std::string& flag,
                        std::int64_t fallback, std::int64_t low, std::int64_t high);

/// The word after `flag` (`choices[0]` when absent); std::invalid_argument when not one of them.
std::string flag_choice(const std::vector<std::string>& args, const std::string& flag,
                        const std::vector<std::string>& choices);

}  // namespace grader::referee
