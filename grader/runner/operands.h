/// @file grader/runner/operands.h
/// @brief The runner's side of grader/referee/call_operands.h: an operand's pointer is its buffer
/// plus the byte offset the referee sent (Context::as(remote::Operand)), and a call's workspace is
/// scratch the runner allocates at the size the referee sent (capped there): nobody reads it back,
/// so its bytes never cross the channel.
#pragma once

#include "grader/runner/runner.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader::runner {

/// Device scratch of at least `bytes` (256-byte aligned), for the call about to be made on
/// `context`'s stream; filled with 0xFF bytes first when `poison` (a kernel that relies on memory
/// it did not clear fails the grading tests, as it fails the lab's own). One allocation, grown as
/// needed, kept for the runner's life. nullptr for 0 bytes.
inline void* scratch(std::size_t bytes, bool poison, const Context& context) {
  static void* memory = nullptr;
  static std::size_t size = 0;
  if (bytes == 0) return nullptr;
  const cudaStream_t stream = context.stream();  // the runner has touched CUDA from here on
  auto check = [](cudaError_t status, const char* what) {
    if (status != cudaSuccess)
      throw std::runtime_error(std::string("the runner's workspace: ") + what + ": " +
                               cudaGetErrorString(status));
  };
  if (bytes > size) {
    // Earlier calls of this run may still use the old one.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (memory != nullptr) check(cudaFree(memory), "cudaFree");
    memory = nullptr;
    size = 0;
    check(cudaMalloc(&memory, bytes), "cudaMalloc");
    size = bytes;
  }
  if (poison) check(cudaMemsetAsync(memory, 0xFF, bytes, stream), "cudaMemsetAsync");
  return memory;
}

/// The workspace of a declared call (grader/labs/lab12_remote.h, lab13_remote.h) whose members
/// workspace_bytes, workspace_present and workspace_poisoned carry it: nullptr when the referee's
/// call passed none.
template <class Args>
void* call_workspace(const Args& call, const Context& context) {
  if (call.workspace_bytes < 0)
    throw ChannelError("malformed call " + std::string(Args::kFunction) + " " + call.variant +
                       ": a negative workspace");
  if (call.workspace_present == 0) return nullptr;
  // A workspace of 0 bytes the referee passed is still a pointer (the launch must refuse its size).
  const std::size_t size = std::max<std::size_t>(static_cast<std::size_t>(call.workspace_bytes), 1);
  return scratch(size, call.workspace_poisoned != 0, context);
}

/// Replies `value` as the call's result (8 bytes, little-endian as the referee reads it).
inline void reply_size(Context& context, std::uint64_t value) {
  std::vector<std::uint8_t> bytes(8);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::uint8_t>(value >> (8 * i));
  context.set_result(std::move(bytes));
}

}  // namespace grader::runner
