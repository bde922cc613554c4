#include "common/cuda_check.h"

#include <cstdlib>
#include <cstring>

namespace cudalabs {

CudaError::CudaError(cudaError_t code, const std::string& what)
    : std::runtime_error(what), code_(code) {}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::string message = std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                        ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  throw CudaError(code, message);
}

namespace {
bool sync_after_launch() {
  static const bool enabled = [] {
    const char* value = std::getenv("CUDALABS_SYNC_LAUNCHES");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return enabled;
}
}  // namespace

void check_launch(const char* kernel, const char* file, int line) {
  const std::string call = std::string("launch of ") + kernel;
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw_cuda_error(status, call.c_str(), file, line);
  if (sync_after_launch()) {
    status = cudaDeviceSynchronize();
    if (status != cudaSuccess) throw_cuda_error(status, call.c_str(), file, line);
  }
}

}  // namespace cudalabs
