/// @file grader/referee/remote_operand.h
/// @brief The operands of remote calls: what the referee's tests pass by pointer is copied into
/// the runner's buffers (same misalignment, guards around each), and what the call writes comes
/// back into the referee's memory after it.
#pragma once

#include "grader/call.h"
#include "grader/referee/remote_runner.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace grader::referee {

class OperandSession {
 public:
  /// Waits for `stream` and the device before the first operand is copied: the tests filled the
  /// operands there.
  OperandSession(RemoteRunner& runner, cudaStream_t stream);
  /// Frees the runner's buffers.
  ~OperandSession();
  OperandSession(const OperandSession&) = delete;
  OperandSession& operator=(const OperandSession&) = delete;

  /// The buffer argument for `elements` elements of `element_bytes` at `pointer` (device or host
  /// memory of the referee): kNullBuffer for nullptr, kDummyBuffer when `elements` < 0 (the
  /// arguments describe no matrix: a bad-argument test), else a copy in the runner.
  std::int64_t input(const void* pointer, std::int64_t elements, std::size_t element_bytes);
  /// The same for an operand the call writes: run() copies it back to `pointer`.
  std::int64_t output(void* pointer, std::int64_t elements, std::size_t element_bytes,
                      const std::string& what);
  /// Makes the calls; on success copies the outputs back and returns each call's host result.
  /// Throws as RemoteRunner::run does, or when an output's guards changed.
  std::vector<std::vector<std::uint8_t>> run(const std::vector<Call>& calls,
                                             const RemoteRunner::CallbackHandler& callbacks = {});

 private:
  struct Output {
    void* pointer;
    RemoteBuffer buffer;
    std::string what;
  };
  void wait_for_device();
  RemoteRunner& runner_;
  cudaStream_t stream_;
  bool waited_ = false;
  std::vector<Output> outputs_;
};

}  // namespace grader::referee
