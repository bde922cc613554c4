/// @file grader/runner/runner.h
/// @brief The runner: the process that holds the student's code. It reads requests from the
/// referee, makes the calls asked for on device buffers it was given, and replies with a status and
/// the buffers' bytes. Nothing it replies is believed but those bytes, which the referee checks.
///
/// Each lab's runner links one list of handlers (lab_handlers), one per function of the lab's
/// interface; a handler unpacks a declared Call (grader/remote.h: remote_handler) and calls the
/// student's function.
#pragma once

#include "grader/call.h"
#include "grader/remote.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader::runner {

/// Thrown by a handler when the student's code lacks the variant or function asked for.
class Missing : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a handler may use: the buffers and the stream of this runner.
class Context {
 public:
  virtual ~Context() = default;
  /// The device pointer of buffer `id` (nullptr for kNullBuffer).
  virtual void* buffer(std::int64_t id) const = 0;
  /// The stream every call is made on.
  virtual cudaStream_t stream() const = 0;
  /// The call's result for the referee (host bytes it checks itself), replacing any earlier one.
  virtual void set_result(std::vector<std::uint8_t> bytes) = 0;
  /// Asks the referee to do `kind` with `payload` and waits for its answer (thread-safe: lab 10's
  /// workers call back from the student's threads). Throws std::runtime_error when it refused.
  virtual std::vector<std::uint8_t> callback(const std::string& kind,
                                             const std::vector<std::uint8_t>& payload) = 0;

  /// A buffer argument of a declared remote function (grader/remote.h).
  template <class T>
  T* as(remote::Buffer argument) const {
    return static_cast<T*>(buffer(argument.id));
  }
  /// An operand of a declared remote function: its buffer, `offset` bytes in (nullptr stays null).
  template <class T>
  T* as(remote::Operand argument) const {
    auto* base = static_cast<std::uint8_t*>(buffer(argument.id));
    return base == nullptr ? nullptr : reinterpret_cast<T*>(base + argument.offset);
  }
};

struct Handler {
  const char* function;  ///< Call::function it answers
  void (*run)(const Call& call, Context& context);
};

/// The handler of the remote function `Args` declares (grader/remote.h): the call unpacked by
/// from_call, then `Run` on its arguments.
template <class Args, void (*Run)(const Args& args, Context& context)>
constexpr Handler remote_handler() {
  return {Args::kFunction,
          [](const Call& call, Context& context) { Run(remote::from_call<Args>(call), context); }};
}

/// The handlers of the lab this runner is built for (one definition per runner executable).
std::span<const Handler> lab_handlers();

/// The entry of `table` named `name` (by its `name` member), or Missing naming it.
template <class Table>
const auto& find_named(const Table& table, const std::string& name) {
  for (const auto& entry : table)
    if (name == entry.name) return entry;
  throw Missing("the submission has no variant named '" + name + "'");
}

}  // namespace grader::runner
