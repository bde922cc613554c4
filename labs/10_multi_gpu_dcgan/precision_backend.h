/// @file labs/10_multi_gpu_dcgan/precision_backend.h
/// @brief --precision in lab 10's programs: lab 11's tensor-core layers for every worker, in the
/// finished programs (`lab10_solution`, `dcgan_mpi`), which CMake builds with
/// CUDALABS_DCGAN_TENSOR_CORES; the student's programs run lab 09's FP32 kernels only.
#pragma once

#include "common/cli.h"
#include "common/compute_precision.h"
#include "labs/09_dcgan/generator.h"
#ifdef CUDALABS_DCGAN_TENSOR_CORES
#include "labs/11_tensor_cores/tensor_core_generator.h"
#endif

#include <memory>
#include <stdexcept>
#include <string>

namespace lab10 {

/// Throws cudalabs::FlagError naming --precision where `program` was built without lab 11's
/// layers and `precision` is not FP32 (no GPU needed: call it with the other flag checks).
inline void check_precision_flag(cudalabs::ComputePrecision precision, const std::string& program) {
#ifdef CUDALABS_DCGAN_TENSOR_CORES
  (void)precision;
  (void)program;
#else
  if (precision != cudalabs::ComputePrecision::kFp32)
    throw cudalabs::FlagError(std::string("--precision ") + cudalabs::precision_name(precision) +
                              ": " + program +
                              " runs lab 09's FP32 kernels; lab10_solution and dcgan_mpi run tf32 "
                              "and bf16 on lab 11's tensor cores");
#endif
}

/// The backend every GpuWorker gets for `precision` (check_precision_flag passed): none for FP32.
/// Throws std::runtime_error (one line, the reason) where this GPU cannot run lab 11's layers.
inline lab09::PrecisionBackend precision_backend(cudalabs::ComputePrecision precision) {
  if (precision == cudalabs::ComputePrecision::kFp32) return {};
#ifdef CUDALABS_DCGAN_TENSOR_CORES
  const std::string unavailable = lab11::tensor_core_unavailable(precision);
  if (!unavailable.empty())
    throw std::runtime_error(std::string("--precision ") + cudalabs::precision_name(precision) +
                             ": " + unavailable);
  return {&lab11::tensor_core_variant(precision),
          [precision](const cudalabs::dcgan::Weights& weights, int max_batch) {
            return std::make_unique<lab11::TensorCoreLayers>(weights, max_batch, precision);
          }};
#else
  throw std::logic_error("lab10: --precision other than fp32 without lab 11's layers");
#endif
}

}  // namespace lab10
