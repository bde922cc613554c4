/// @file cuda_check.h
/// @brief Error checks for CUDA runtime calls and kernel launches.
///
/// Every CUDA call in the suite goes through CUDA_CHECK, and every launch is followed by
/// CUDA_CHECK_LAUNCH, so a failure names the call, the file and the line instead of surfacing later
/// as a wrong number.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace cudalabs {

/// Thrown when a CUDA runtime call or a kernel launch fails.
class CudaError : public std::runtime_error {
 public:
  /// @param code  the CUDA status that was returned
  /// @param what  the message: the failed call, its file and line, and the CUDA error string
  CudaError(cudaError_t code, const std::string& what);

  /// The CUDA status that caused the error.
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// Builds the message for a failed call and throws CudaError.
/// @param code  the failed status
/// @param call  the call's source text, e.g. "cudaMalloc(&p, bytes)"
/// @param file  the source file of the call
/// @param line  the source line of the call
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

/// Checks the launch that was just made: a bad configuration (too many threads, too much shared
/// memory) is reported by cudaGetLastError right after the launch. When the environment variable
/// CUDALABS_SYNC_LAUNCHES is set to 1, it also synchronizes so that a fault inside the kernel is
/// blamed on this launch rather than on a later call.
/// @param kernel  a name for the launched kernel, used in the message
/// @param file    the source file of the launch
/// @param line    the source line of the launch
void check_launch(const char* kernel, const char* file, int line);

}  // namespace cudalabs

/// Evaluates a CUDA runtime call and throws cudalabs::CudaError naming it if it did not succeed.
#define CUDA_CHECK(call)                                                         \
  do {                                                                           \
    const cudaError_t cudalabs_status_ = (call);                                 \
    if (cudalabs_status_ != cudaSuccess) {                                       \
      ::cudalabs::throw_cuda_error(cudalabs_status_, #call, __FILE__, __LINE__); \
    }                                                                            \
  } while (0)

/// Checks the kernel launch made just before it; `kernel` names the kernel in the message.
#define CUDA_CHECK_LAUNCH(kernel) ::cudalabs::check_launch(kernel, __FILE__, __LINE__)
