// Lab 03 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining layout_gemm_kernel). One block of 16 x 16 threads per 16 x 16 tile of C; as in
// [SGEMM-3080], blockIdx.x and threadIdx.x run along the rows of C, blockIdx.y and threadIdx.y
// along its columns.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

namespace lab03 {
namespace {

template <bool kTransposeA, bool kTransposeB>
cudalabs::KernelLaunch describe(const cudalabs::GemmShape& shape) {
  return {reinterpret_cast<const void*>(&layout_gemm_kernel<kTransposeA, kTransposeB>),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.m, kTile),
                                 cudalabs::ceil_div(shape.n, kTile), 1, "lab03 layout GEMM"),
          dim3(kTile, kTile), 0};
}

template <bool kTransposeA, bool kTransposeB>
void launch(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab03 layout GEMM");
  const cudalabs::KernelLaunch config = describe<kTransposeA, kTransposeB>(args.shape());
  layout_gemm_kernel<kTransposeA, kTransposeB><<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab03 layout_gemm_kernel");
}

constexpr cudalabs::GemmVariant kVariants[] = {
    {"RR", "A and B tiles as in global memory", &launch<false, false>, &describe<false, false>},
    {"RC", "B tile transposed", &launch<false, true>, &describe<false, true>},
    {"CR", "A tile transposed", &launch<true, false>, &describe<true, false>},
    {"CC", "A and B tiles transposed", &launch<true, true>, &describe<true, true>},
};

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

}  // namespace lab03
