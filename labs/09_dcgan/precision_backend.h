/// @file labs/09_dcgan/precision_backend.h
/// @brief --precision in the DCGAN programs: the precisions a program runs besides lab 09's FP32
/// kernels, and the backend (lab09::PrecisionBackend, generator.h) that runs them on each GPU.
///
/// Declared here, defined by what the program links. The labs' programs (lab09, lab10, lab10_mpi
/// and their solutions) link fp32_backend.cpp: FP32 alone, and a clear line for any other
/// --precision. The finished programs (programs/: dcgan, dcgan_multi_gpu, dcgan_mpi) link
/// programs/tensor_core_backend.cpp, lab 11's tensor-core layers for tf32 and bf16. So the labs'
/// drivers name no later lab, and a student's program compiles the same main.cu as its solution
/// and as the finished program.
#pragma once

#include "common/compute_precision.h"
#include "common/earlier_labs.h"
#include "labs/09_dcgan/generator.h"

#include <cstddef>
#include <string>
#include <vector>

namespace lab09 {

/// Throws cudalabs::FlagError naming --precision where this program (cudalabs::program_name())
/// does not run `precision`. No GPU needed: call it with the other flag checks.
void check_precision_flag(cudalabs::ComputePrecision precision);

/// The backend every generator of this program gets for `precision` (check_precision_flag
/// passed): none for FP32. Throws std::runtime_error (one line, the reason) where this GPU cannot
/// run it.
PrecisionBackend precision_backend(cudalabs::ComputePrecision precision);

/// Device bytes the layers of `precision` allocate for batches of up to `max_batch` images (0 for
/// FP32: the generator's own buffers are counted apart).
std::size_t precision_device_bytes(cudalabs::ComputePrecision precision, int max_batch);

/// The later labs whose kernels this program's precisions run, for the line that says what a
/// program is built on (none for a program of FP32 kernels).
std::vector<cudalabs::EarlierLab> precision_labs();

}  // namespace lab09
