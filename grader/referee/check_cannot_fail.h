/// @file grader/referee/check_cannot_fail.h
/// @brief Thrown by a referee check whose bound could not fail (an infinite bound, or one a
/// skipped result would meet): the grader's defect, reported as "not graded", never the student's.
#pragma once

#include <stdexcept>

namespace grader::referee {

class CheckCannotFail : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace grader::referee
