// Lab 08 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining coarsened_conv_kernel). The plan (tiling.h) fixes the tile, the block size and the
// shared memory; the grid is (tiles per image, filters, images).
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"
#include "tiling.h"

namespace lab08 {
namespace {

template <int kFactor>
cudalabs::KernelLaunch describe(const cudalabs::ConvShape& shape) {
  const ConvTiling tiling = plan_tiling(shape, kFactor);
  return {reinterpret_cast<const void*>(&coarsened_conv_kernel<kFactor>),
          cudalabs::checked_grid(tiling.tiles, shape.f, shape.n, "lab08 coarsened convolution"),
          dim3(tiling.threads), tiling.shared_bytes};
}

template <int kFactor>
void launch(const cudalabs::ConvArgs& args, cudaStream_t stream) {
  cudalabs::validate_conv_args(args, "lab08 coarsened convolution");
  const ConvTiling tiling = plan_tiling(args.shape, kFactor);
  const cudalabs::KernelLaunch config = describe<kFactor>(args.shape);
  coarsened_conv_kernel<kFactor>
      <<<config.grid, config.block, config.dynamic_shared_bytes, stream>>>(args, tiling);
  CUDA_CHECK_LAUNCH("lab08 coarsened_conv_kernel");
}

constexpr ConvVariant kVariants[] = {
    {"coarsen1", "one output per thread: the uncoarsened kernel", 1, &launch<1>, &describe<1>},
    {"coarsen2", "two outputs per thread", 2, &launch<2>, &describe<2>},
    {"coarsen4", "four outputs per thread", 4, &launch<4>, &describe<4>},
    {"coarsen8", "eight outputs per thread", 8, &launch<8>, &describe<8>},
    {"coarsen16", "sixteen outputs per thread", 16, &launch<16>, &describe<16>},
    {"coarsen32", "thirty-two outputs per thread: a block of one or two warps", 32, &launch<32>,
     &describe<32>},
};

}  // namespace

std::span<const ConvVariant> variants() {
  return kVariants;
}

}  // namespace lab08
