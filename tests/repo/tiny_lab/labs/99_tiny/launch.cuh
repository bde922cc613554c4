// The tiny lab's launch, shared by the student's and the solution's kernels.cu (each includes it
// after defining tiny_gemm_kernel): 16 x 16 blocks over C.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

namespace lab99 {
namespace {

cudalabs::KernelLaunch describe(const cudalabs::GemmShape& shape) {
  return {reinterpret_cast<const void*>(&tiny_gemm_kernel),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.n, 16), cudalabs::ceil_div(shape.m, 16),
                                 1, "lab99 tiny GEMM"),
          dim3(16, 16), 0};
}

void launch(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab99 tiny GEMM");
  const cudalabs::KernelLaunch config = describe(args.shape());
  tiny_gemm_kernel<<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab99 tiny_gemm_kernel");
}

constexpr cudalabs::GemmVariant kVariants[] = {
    {"tiny_naive", "one thread per element of C", &launch, &describe},
};

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

}  // namespace lab99
