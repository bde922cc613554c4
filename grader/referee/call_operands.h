/// @file grader/referee/call_operands.h
/// @brief The operands of one remote call that may overlap: an in-place softmax (output ==
/// input), a scan whose output overlaps its input (the test that it is refused). Operands that
/// overlap in the referee's memory share one buffer in the runner, at the same distance apart, so
/// that the student's code sees the aliasing the test made; each operand reaches the runner as a
/// buffer and a byte offset into it (remote::Operand, grader/remote.h).
#pragma once

#include "grader/referee/remote_operand.h"
#include "grader/remote.h"

#include <cstdint>
#include <string>
#include <vector>

namespace grader::referee {

class CallOperands {
 public:
  explicit CallOperands(OperandSession& session) : session_(session) {}

  /// An operand the call reads: `bytes` at `pointer` (referee device or host memory). nullptr
  /// passes nullptr; `bytes` < 0 passes the dummy buffer (the arguments describe no array: the call
  /// must refuse them before it touches memory).
  void input(const void* pointer, std::int64_t bytes);
  /// An operand the call writes: the session copies it back after the run.
  void output(void* pointer, std::int64_t bytes, const std::string& what);

  /// Puts the operands' buffers in the runner: each operand, in the order they were added, as the
  /// buffer and offset a declared call carries.
  std::vector<remote::Operand> place();

 private:
  struct Operand {
    const void* pointer;
    std::int64_t bytes;
    bool written;
    std::string what;
  };
  OperandSession& session_;
  std::vector<Operand> operands_;
};

}  // namespace grader::referee
