// Lab 04 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining tiled_gemm_kernel). A block of kEdge x kEdge threads per kEdge x kEdge tile of C;
// blockIdx.x runs over column tiles and threadIdx.x along a row.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

namespace lab04 {
namespace {

template <int kEdge>
cudalabs::KernelLaunch describe(const cudalabs::GemmShape& shape) {
  return {reinterpret_cast<const void*>(&tiled_gemm_kernel<kEdge>),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.n, kEdge),
                                 cudalabs::ceil_div(shape.m, kEdge), 1, "lab04 tiled GEMM"),
          dim3(kEdge, kEdge), 0};
}

template <int kEdge>
void launch(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab04 tiled GEMM");
  const cudalabs::KernelLaunch config = describe<kEdge>(args.shape());
  tiled_gemm_kernel<kEdge><<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab04 tiled_gemm_kernel");
}

constexpr cudalabs::GemmVariant kVariants[] = {
    {"block_4x4", "4 x 4 threads, 4 x 4 tiles", &launch<4>, &describe<4>},
    {"block_8x8", "8 x 8 threads, 8 x 8 tiles", &launch<8>, &describe<8>},
    {"block_16x16", "16 x 16 threads, 16 x 16 tiles", &launch<16>, &describe<16>},
    {"block_32x32", "32 x 32 threads, 32 x 32 tiles", &launch<32>, &describe<32>},
};

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

}  // namespace lab04
