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

/// store_gemm_result for four consecutive elements at once: one 128-bit load (only when beta != 0)
/// and one 128-bit store. `c` must be 16-byte aligned.
__device__ __forceinline__ void store_gemm_result4(float* c, float4 acc, float alpha, float beta) {
  float4 out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
  if (beta != 0.0f) {
    const float4 old = *reinterpret_cast<const float4*>(c);
    out = make_float4(fmaf(beta, old.x, out.x), fmaf(beta, old.y, out.y), fmaf(beta, old.z, out.z),
                      fmaf(beta, old.w, out.w));
  }
  *reinterpret_cast<float4*>(c) = out;
}

}  // namespace cudalabs
