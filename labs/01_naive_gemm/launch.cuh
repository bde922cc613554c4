// Lab 01 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining naive_gemm_kernel). It is given, not part of the exercise: the grid covers C with
// 32 x 8 blocks, and which matrix dimension runs along x follows the variant's mapping.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

namespace lab01 {
namespace {

template <bool kThreadXWalksColumns>
cudalabs::KernelLaunch describe(const cudalabs::GemmShape& shape) {
  const int along_x = kThreadXWalksColumns ? shape.n : shape.m;
  const int along_y = kThreadXWalksColumns ? shape.m : shape.n;
  return {reinterpret_cast<const void*>(&naive_gemm_kernel<kThreadXWalksColumns>),
          cudalabs::checked_grid(cudalabs::ceil_div(along_x, kBlockX),
                                 cudalabs::ceil_div(along_y, kBlockY), 1, "lab01 naive GEMM"),
          dim3(kBlockX, kBlockY), 0};
}

template <bool kThreadXWalksColumns>
void launch(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab01 naive GEMM");
  const cudalabs::KernelLaunch config = describe<kThreadXWalksColumns>(args.shape());
  naive_gemm_kernel<kThreadXWalksColumns><<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab01 naive_gemm_kernel");
}

constexpr cudalabs::GemmVariant kVariants[] = {
    {"naive_strided", "threadIdx.x walks down a column of C: uncoalesced", &launch<false>,
     &describe<false>},
    {"naive_coalesced", "threadIdx.x walks along a row of C: coalesced", &launch<true>,
     &describe<true>},
};

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

}  // namespace lab01
