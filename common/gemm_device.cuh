/// @file gemm_device.cuh
/// @brief Device helpers every GEMM kernel of the suite shares.
#pragma once

#include <cuda_runtime.h>

namespace cudalabs {

/// Writes alpha * acc + beta * (*c) to *c. When beta == 0 the old value is not read at all: C may
/// hold NaN or garbage (the BLAS convention), and the harness's NaN poisoning relies on it.
__device__ __forceinline__ void store_gemm_result(float* c, float acc, float alpha, float beta) {
  *c = beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
}

}  // namespace cudalabs
