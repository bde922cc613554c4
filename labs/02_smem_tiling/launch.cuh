// Lab 02 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining tiled_gemm_kernel). One block of kTile x kTile threads per kTile x kTile tile of
// C; blockIdx.x runs over column tiles and blockIdx.y over row tiles in every variant.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

namespace lab02 {
namespace {

template <bool kThreadXWalksRows, int kPadding>
cudalabs::KernelLaunch describe(const cudalabs::GemmShape& shape) {
  return {reinterpret_cast<const void*>(&tiled_gemm_kernel<kThreadXWalksRows, kPadding>),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.n, kTile),
                                 cudalabs::ceil_div(shape.m, kTile), 1, "lab02 tiled GEMM"),
          dim3(kTile, kTile), 0};
}

template <bool kThreadXWalksRows, int kPadding>
void launch(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab02 tiled GEMM");
  const cudalabs::KernelLaunch config = describe<kThreadXWalksRows, kPadding>(args.shape());
  tiled_gemm_kernel<kThreadXWalksRows, kPadding><<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab02 tiled_gemm_kernel");
}

constexpr cudalabs::GemmVariant kVariants[] = {
    {"tiled_strided", "shared tiles, threadIdx.x walks rows", &launch<true, 0>, &describe<true, 0>},
    {"tiled_strided_padded", "the same, each shared row padded by one float", &launch<true, 1>,
     &describe<true, 1>},
    {"tiled_coalesced", "shared tiles, threadIdx.x walks columns", &launch<false, 0>,
     &describe<false, 0>},
};

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

}  // namespace lab02
