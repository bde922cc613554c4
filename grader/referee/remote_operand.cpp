#include "grader/referee/remote_operand.h"

#include <cstring>
#include <stdexcept>

namespace grader::referee {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Copies the referee's operand to the host when it is device memory; false otherwise (a
// bad-argument test passes a host array: the runner gets zeros at the same misalignment, and the
// call must refuse its arguments before it touches them).
bool copy_out(std::uint8_t* host, const void* pointer, std::size_t bytes) {
  if (bytes == 0) return true;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();
    std::memset(host, 0, bytes);
    return false;
  }
  if ((attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) ||
      cudaMemcpy(host, pointer, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    (void)cudaGetLastError();
    std::memset(host, 0, bytes);
    return false;
  }
  return true;
}

}  // namespace

OperandSession::OperandSession(RemoteRunner& runner, cudaStream_t stream)
    : runner_(runner), stream_(stream) {}

void OperandSession::wait_for_device() {
  if (waited_) return;
  waited_ = true;
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (before a remote call)");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before a remote call)");
}

OperandSession::~OperandSession() {
  try {
    if (waited_) runner_.free_all();
  } catch (...) {
  }
}

std::int64_t OperandSession::input(const void* pointer, std::int64_t elements,
                                   std::size_t element_bytes) {
  if (pointer == nullptr) return kNullBuffer;
  if (elements < 0) return kDummyBuffer;
  wait_for_device();
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  const std::size_t bytes = static_cast<std::size_t>(elements) * element_bytes;
  return runner_
      .put_written(bytes, address % 256,
                   [&](std::uint8_t* arena) { copy_out(arena, pointer, bytes); })
      .id;
}

std::int64_t OperandSession::output(void* pointer, std::int64_t elements, std::size_t element_bytes,
                                    const std::string& what) {
  if (pointer == nullptr) return kNullBuffer;
  if (elements < 0) return kDummyBuffer;
  wait_for_device();
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  const std::size_t bytes = static_cast<std::size_t>(elements) * element_bytes;
  bool device = false;
  const RemoteBuffer buffer = runner_.put_written(
      bytes, address % 256, [&](std::uint8_t* arena) { device = copy_out(arena, pointer, bytes); });
  if (device) outputs_.push_back({pointer, buffer, what});  // a host array is never written back
  return buffer.id;
}

std::vector<std::vector<std::uint8_t>> OperandSession::run(
    const std::vector<Call>& calls, const RemoteRunner::CallbackHandler& callbacks) {
  std::vector<std::vector<std::uint8_t>> results = runner_.run(calls, callbacks);
  // On the caller's stream, and finished before returning: a kernel would have written its outputs
  // in that stream's order. A plain cudaMemcpy from pageable memory may return before its DMA
  // lands, and a non-blocking stream (lab 09's pipeline) would then read the old values.
  for (const Output& output : outputs_) {
    const std::vector<std::uint8_t> bytes = runner_.get(output.buffer, output.what);
    if (!bytes.empty()) {
      check(cudaMemcpyAsync(output.pointer, bytes.data(), bytes.size(), cudaMemcpyHostToDevice,
                            stream_),
            "cudaMemcpyAsync (result)");
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (result)");
    }
  }
  return results;
}

}  // namespace grader::referee
