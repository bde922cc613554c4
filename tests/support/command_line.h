/// @file tests/support/command_line.h
/// @brief A command line for the tests of the programs' parsers (parse_flags, guarded_main,
/// LabDriver).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cudalabs::testing {

/// argc and argv of `words`, the first the program's name: the strings live as long as the Args.
struct Args {
  /// The command line of `words`.
  explicit Args(std::vector<std::string> words) : strings(std::move(words)) {
    for (std::string& word : strings) pointers.push_back(word.data());
  }
  /// The number of words.
  int argc() const { return static_cast<int>(pointers.size()); }
  /// The words as main() gets them.
  char** argv() { return pointers.data(); }
  std::vector<std::string> strings;  ///< the words
  std::vector<char*> pointers;       ///< each word's first character
};

}  // namespace cudalabs::testing
