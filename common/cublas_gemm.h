/// @file cublas_gemm.h
/// @brief cuBLAS as the reference and the speed to beat, for row-major GEMM.
#pragma once

#include "common/gemm_types.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace cudalabs {

/// Throws std::runtime_error naming the failed cuBLAS call, its file and line.
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

/// An owned cuBLAS handle set to plain FP32 math: no TF32 tensor-core shortcut, so cuBLAS computes
/// the same float32 product the labs do and the comparison is fair.
class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  /// The raw handle.
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

/// Row-major C = alpha * A * B + beta * C with cublasSgemm. cuBLAS is column-major; a row-major
/// matrix is the column-major view of its transpose, so the call computes C^T = B^T A^T by passing
/// B first and swapping m and n. No data is transposed.
void cublas_gemm_row_major(const CublasHandle& handle, const GemmArgs& args,
                           cudaStream_t stream = nullptr);

/// Row-major C = alpha * A * B + beta * C with A and B in BF16 and C in FP32 (cublasGemmEx, FP32
/// compute): cuBLAS on the tensor cores at lab 11's precision.
void cublas_gemm_bf16_row_major(const CublasHandle& handle, const Bf16GemmArgs& args,
                                cudaStream_t stream = nullptr);

/// Row-major C = alpha * A * B + beta * C with A and B in FP16 and C in FP32 (cublasGemmEx, FP32
/// compute): cuBLAS on the tensor cores at the precision of lab 11's FP16 rungs.
void cublas_gemm_fp16_row_major(const CublasHandle& handle, const Fp16GemmArgs& args,
                                cudaStream_t stream = nullptr);

/// Row-major FP32 GEMM computed in TF32 on the tensor cores (cublasGemmEx with
/// CUBLAS_COMPUTE_32F_FAST_TF32): the inputs keep 10 bits of mantissa in the products.
void cublas_gemm_tf32_row_major(const CublasHandle& handle, const GemmArgs& args,
                                cudaStream_t stream = nullptr);

}  // namespace cudalabs

/// Evaluates a cuBLAS call and throws naming it if it did not succeed.
#define CUBLAS_CHECK(call)                                                                \
  do {                                                                                    \
    const cublasStatus_t cudalabs_cublas_status_ = (call);                                \
    if (cudalabs_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                               \
      ::cudalabs::throw_cublas_error(cudalabs_cublas_status_, #call, __FILE__, __LINE__); \
    }                                                                                     \
  } while (0)
