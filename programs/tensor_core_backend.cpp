// The finished DCGAN programs (dcgan, dcgan_multi_gpu, dcgan_mpi): --precision tf32 and bf16 run
// lab 11's tensor-core layers (labs/09_dcgan/precision_backend.h's functions, defined with lab 11).
// This file composes the labs from above: it is the only place where lab 09's and lab 10's drivers
// meet lab 11.
#include "labs/09_dcgan/precision_backend.h"
#include "labs/11_tensor_cores/lab.h"
#include "labs/11_tensor_cores/tensor_core_generator.h"

#include <memory>
#include <stdexcept>
#include <string>

namespace lab09 {

void check_precision_flag(cudalabs::ComputePrecision) {}  // every precision

PrecisionBackend precision_backend(cudalabs::ComputePrecision precision) {
  if (precision == cudalabs::ComputePrecision::kFp32) return {};
  const std::string unavailable = lab11::tensor_core_unavailable(precision);
  if (!unavailable.empty())
    throw std::runtime_error(std::string("--precision ") + cudalabs::precision_name(precision) +
                             ": " + unavailable);
  return {&lab11::tensor_core_variant(precision),
          [precision](const cudalabs::dcgan::Weights& weights, int max_batch) {
            return std::make_unique<lab11::TensorCoreLayers>(weights, max_batch, precision);
          }};
}

std::size_t precision_device_bytes(cudalabs::ComputePrecision precision, int max_batch) {
  if (precision == cudalabs::ComputePrecision::kFp32) return 0;
  return lab11::TensorCoreLayers::device_bytes(max_batch, precision);
}

std::vector<cudalabs::EarlierLab> precision_labs() {
  return {{"11", cudalabs_lab11_kernels_build()}};
}

}  // namespace lab09
