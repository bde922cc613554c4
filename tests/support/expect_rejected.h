/// @file tests/support/expect_rejected.h
/// @brief The bad-argument check every launcher test makes: the call throws std::invalid_argument
/// and its message names the argument.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace cudalabs::testing {

/// Calls `call()`; fails unless it throws std::invalid_argument whose message contains `needle`.
/// `who` names the launcher in the failure message.
template <typename Call>
void expect_rejected(const std::string& who, Call&& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << who << " accepted arguments with " << needle;
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos)
        << "message '" << error.what() << "' does not name '" << needle << "'";
  }
}

}  // namespace cudalabs::testing
