#include "common/cublas_gemm.h"

#include <nvtx3/nvtx3.hpp>

#include <stdexcept>
#include <string>

namespace cudalabs {

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                           ": " + cublasGetStatusName(status) + " (" +
                           cublasGetStatusString(status) + ")");
}

CublasHandle::CublasHandle() {
  CUBLAS_CHECK(cublasCreate(&handle_));
  // The default mode keeps at least float32's mantissa in every step, so SGEMM runs on the FP32
  // pipes; TF32 tensor cores would need CUBLAS_TF32_TENSOR_OP_MATH, which is never set here.
  // (PEDANTIC_MATH would also forbid TF32 but may pick slower kernels, an unfair opponent.)
  CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
}

CublasHandle::~CublasHandle() {
  (void)cublasDestroy(handle_);
}  // a destructor must not throw

void cublas_gemm_row_major(const CublasHandle& handle, const GemmArgs& args, cudaStream_t stream) {
  validate_gemm_args(args, "cublas");
  // Profilers select cuBLAS's kernels by this range (scripts/profile: ncu --nvtx-include
  // "cublas/").
  const nvtx3::scoped_range range{"cublas"};
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  CUBLAS_CHECK(cublasSgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, args.n, args.m, args.k,
                           &args.alpha, args.b, args.ldb, args.a, args.lda, &args.beta, args.c,
                           args.ldc));
}

namespace {

// cublasGemmEx on row-major operands: the column-major C^T = B^T A^T, as for cublasSgemm above.
template <class Input>
void gemm_ex_row_major(const CublasHandle& handle, const GemmArgsOf<Input>& args,
                       cudaDataType_t input_type, cublasComputeType_t compute, const char* who,
                       cudaStream_t stream) {
  validate_gemm_args(args, who);
  const nvtx3::scoped_range range{"cublas"};
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  CUBLAS_CHECK(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, args.n, args.m, args.k,
                            &args.alpha, args.b, input_type, args.ldb, args.a, input_type, args.lda,
                            &args.beta, args.c, CUDA_R_32F, args.ldc, compute,
                            CUBLAS_GEMM_DEFAULT));
}

}  // namespace

void cublas_gemm_bf16_row_major(const CublasHandle& handle, const Bf16GemmArgs& args,
                                cudaStream_t stream) {
  gemm_ex_row_major(handle, args, CUDA_R_16BF, CUBLAS_COMPUTE_32F, "cublas_bf16", stream);
}

void cublas_gemm_fp16_row_major(const CublasHandle& handle, const Fp16GemmArgs& args,
                                cudaStream_t stream) {
  gemm_ex_row_major(handle, args, CUDA_R_16F, CUBLAS_COMPUTE_32F, "cublas_fp16", stream);
}

void cublas_gemm_tf32_row_major(const CublasHandle& handle, const GemmArgs& args,
                                cudaStream_t stream) {
  gemm_ex_row_major(handle, args, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, "cublas_tf32", stream);
}

}  // namespace cudalabs
