// Lab 06 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining prefetch_gemm_kernel and async_gemm_kernel). One block of (BM/TM) x (BN/TN)
// threads per BM x BN tile of C, as in lab 05.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

namespace lab06 {
namespace {

template <int BM, int BN, int BK, int TM, int TN>
cudalabs::KernelLaunch describe_prefetch(const cudalabs::GemmShape& shape) {
  return {reinterpret_cast<const void*>(&prefetch_gemm_kernel<BM, BN, BK, TM, TN>),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.n, BN), cudalabs::ceil_div(shape.m, BM),
                                 1, "lab06"),
          dim3((BM / TM) * (BN / TN)), 0};
}

template <int BM, int BN, int BK, int TM, int TN>
void launch_prefetch(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab06 prefetch_regs");
  const cudalabs::KernelLaunch config = describe_prefetch<BM, BN, BK, TM, TN>(args.shape());
  prefetch_gemm_kernel<BM, BN, BK, TM, TN><<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab06 prefetch_gemm_kernel");
}

template <int BM, int BN, int BK, int TM, int TN>
cudalabs::KernelLaunch describe_async(const cudalabs::GemmShape& shape) {
  return {reinterpret_cast<const void*>(&async_gemm_kernel<BM, BN, BK, TM, TN>),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.n, BN), cudalabs::ceil_div(shape.m, BM),
                                 1, "lab06"),
          dim3((BM / TM) * (BN / TN)), 0};
}

template <int BM, int BN, int BK, int TM, int TN>
void launch_async(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab06 cp_async");
  const cudalabs::KernelLaunch config = describe_async<BM, BN, BK, TM, TN>(args.shape());
  async_gemm_kernel<BM, BN, BK, TM, TN><<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab06 async_gemm_kernel");
}

constexpr cudalabs::GemmVariant kVariants[] = {
    {"prefetch_regs",
     "128x128x8, 8x8 per thread, next tile prefetched into registers, 2 shared buffers",
     &launch_prefetch<128, 128, 8, 8, 8>, &describe_prefetch<128, 128, 8, 8, 8>},
    {"cp_async", "128x128x8, 8x8 per thread, cp.async into 3 shared stages",
     &launch_async<128, 128, 8, 8, 8>, &describe_async<128, 128, 8, 8, 8>},
};

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

}  // namespace lab06
