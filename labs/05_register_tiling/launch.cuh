// Lab 05 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining register_tiled_kernel). One block of (BM / TM) x (BN / TN) threads, as a flat
// index, per BM x BN tile of C; blockIdx.x runs over column tiles, blockIdx.y over row tiles.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

namespace lab05 {
namespace {

template <int BM, int BN, int BK, int TM, int TN>
cudalabs::KernelLaunch describe(const cudalabs::GemmShape& shape) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  return {reinterpret_cast<const void*>(&register_tiled_kernel<BM, BN, BK, TM, TN>),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.n, BN), cudalabs::ceil_div(shape.m, BM),
                                 1, "lab05 register-tiled GEMM"),
          dim3(kThreads), 0};
}

template <int BM, int BN, int BK, int TM, int TN>
void launch(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab05 register-tiled GEMM");
  const cudalabs::KernelLaunch config = describe<BM, BN, BK, TM, TN>(args.shape());
  register_tiled_kernel<BM, BN, BK, TM, TN><<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab05 register_tiled_kernel");
}

constexpr cudalabs::GemmVariant kVariants[] = {
    {"rt_1d", "64x64x8 tiles, 8 outputs per thread down a column", &launch<64, 64, 8, 8, 1>,
     &describe<64, 64, 8, 8, 1>},
    {"rt_2d", "128x128x8 tiles, 8x8 outputs per thread", &launch<128, 128, 8, 8, 8>,
     &describe<128, 128, 8, 8, 8>},
};

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

}  // namespace lab05
