// The labs' DCGAN programs (lab09, lab10, lab10_mpi and their solutions) run lab 09's FP32
// kernels alone: precision_backend.h's functions for a program without a later lab's layers.
#include "labs/09_dcgan/precision_backend.h"

#include "common/cli.h"

#include <stdexcept>
#include <string>

namespace lab09 {

void check_precision_flag(cudalabs::ComputePrecision precision) {
  if (precision != cudalabs::ComputePrecision::kFp32)
    throw cudalabs::FlagError(std::string("--precision ") + cudalabs::precision_name(precision) +
                              ": " + cudalabs::program_name() +
                              " runs lab 09's FP32 kernels; the finished programs (dcgan, "
                              "dcgan_multi_gpu, dcgan_mpi) run tf32 and bf16 on lab 11's tensor "
                              "cores");
}

PrecisionBackend precision_backend(cudalabs::ComputePrecision precision) {
  if (precision == cudalabs::ComputePrecision::kFp32) return {};
  throw std::logic_error("lab09: --precision other than fp32 in a program of FP32 kernels");
}

std::size_t precision_device_bytes(cudalabs::ComputePrecision, int) {
  return 0;
}

std::vector<cudalabs::EarlierLab> precision_labs() {
  return {};
}

}  // namespace lab09
