// Lab 09 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining the kernels): argument checks, launch shapes, error checks. The grids are given;
// what each thread computes is the lab.
#pragma once

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/subpixel.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace lab09 {
namespace {

constexpr int kElementThreads = 256;

// Blocks per SM the 128 x 128 sub-pixel GEMM's register budget is set for (__launch_bounds__): 2
// (128 registers) unless a tuning build says otherwise (-DCUDALABS_LAB09_MIN_BLOCKS=1: up to 255
// registers, one block per SM); the handout compares the two.
#ifndef CUDALABS_LAB09_MIN_BLOCKS
#define CUDALABS_LAB09_MIN_BLOCKS 2
#endif
constexpr int kSubpixelMinBlocks = CUDALABS_LAB09_MIN_BLOCKS;

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

// The sizes every launch accepts: positive, and an output a batch can hold.
void validate_shape(const cudalabs::dcgan::TconvShape& shape, const char* who) {
  cudalabs::dcgan::validate(shape, who);
  require(
      shape.output_elements() < (std::size_t{1} << 40),
      std::string(who) + ": batch = " + std::to_string(shape.batch) + " makes an absurd output");
}

void validate(const TconvArgs& args, const char* who) {
  cudalabs::dcgan::validate(args.shape, who);
  require(args.input && args.filter && args.output,
          std::string(who) + ": input, filter and output must not be null");
  validate_shape(args.shape, who);
}

// Enough blocks of kElementThreads for `count` elements, at most what a grid-stride loop needs.
dim3 element_grid(std::size_t count) {
  const std::size_t blocks = (count + kElementThreads - 1) / kElementThreads;
  return dim3(static_cast<unsigned>(std::min<std::size_t>(blocks, std::size_t{1} << 24)));
}

// Which sub-pixel kernel a layer runs, and its launch: the launcher and describe_tconv_subpixel
// both read it, so that what is described is what runs.
enum class SubpixelKernel { kSmallK, kWide, kMedium, kNarrow };
struct SubpixelPlan {
  SubpixelKernel kernel;
  cudalabs::KernelLaunch launch;
};

SubpixelPlan plan_subpixel(const cudalabs::dcgan::TconvShape& s) {
  const char* who = "lab09 tconv_subpixel";
  validate_shape(s, who);
  require(s.in_channels % subpixel::kTileK == 0,
          "lab09 tconv_subpixel: in_channels = " + std::to_string(s.in_channels) +
              " must be a multiple of " + std::to_string(subpixel::kTileK));
  if (s.out_channels <= subpixel::kMaxSmallK) {
    // A handful of output channels (the RGB layer): a GEMM tile would be almost all padding, so
    // each thread computes every channel of the 2 x 2 kSmallKPixels outputs of kSmallKPixels input
    // pixels (all four phases), the filter staged in shared memory as float4s. Threads: (image,
    // input row, group of kSmallKPixels columns).
    const std::size_t filter_bytes = 25 * static_cast<std::size_t>(s.in_channels) * sizeof(float4);
    require(filter_bytes <= subpixel::kSmallKSharedBytes,
            "lab09 tconv_subpixel: in_channels = " + std::to_string(s.in_channels) +
                " with out_channels = " + std::to_string(s.out_channels) + " needs " +
                std::to_string(filter_bytes) + " bytes of filter in shared memory (at most " +
                std::to_string(subpixel::kSmallKSharedBytes) + ")");
    const std::size_t groups = (s.width + subpixel::kSmallKPixels - 1) / subpixel::kSmallKPixels;
    const std::size_t items = static_cast<std::size_t>(s.batch) * s.height * groups;
    // 128 threads: the kernel needs about 150 registers, so three such blocks share an SM. At most
    // 1024 blocks, striding over the items, so that each block stages the filter once for many.
    constexpr int kThreads = 128;
    const unsigned blocks =
        static_cast<unsigned>(std::min<std::size_t>((items + kThreads - 1) / kThreads, 1024));
    return {SubpixelKernel::kSmallK,
            {reinterpret_cast<const void*>(&subpixel_small_k_kernel), dim3(blocks), dim3(kThreads),
             filter_bytes}};
  }
  require(s.out_channels % 4 == 0,
          "lab09 tconv_subpixel: out_channels = " + std::to_string(s.out_channels) +
              " must be a multiple of 4 (or at most " + std::to_string(subpixel::kMaxSmallK) + ")");
  const long long rows =
      static_cast<long long>(s.batch) * s.height * s.width;  // one GEMM row per input pixel
  // The tile follows the layer's width: 128 x 256 (8 x 16 per thread, one block per SM) for 256 or
  // more output channels, 128 x 128 (8 x 8, two 256-thread blocks) down to 128, 128 x 64 (8 x 8,
  // three 128-thread blocks: the register cap of four made it spill) below, so that no block works
  // on absent columns.
  const auto plan = [&](SubpixelKernel which, const void* kernel, int tile_m, int tile_n,
                        int threads) {
    const dim3 grid = cudalabs::checked_grid((rows + tile_m - 1) / tile_m,
                                             (s.out_channels + tile_n - 1) / tile_n, 4, who);
    return SubpixelPlan{which, {kernel, grid, dim3(threads), 0}};
  };
  if (s.out_channels >= 256) {
    return plan(SubpixelKernel::kWide,
                reinterpret_cast<const void*>(&subpixel_tconv_kernel<128, 256, 16, 1>), 128, 256,
                (128 / 8) * (256 / 16));
  }
  if (s.out_channels >= 128) {
    return plan(
        SubpixelKernel::kMedium,
        reinterpret_cast<const void*>(&subpixel_tconv_kernel<128, 128, 8, kSubpixelMinBlocks>), 128,
        128, (128 / 8) * (128 / 8));
  }
  return plan(SubpixelKernel::kNarrow,
              reinterpret_cast<const void*>(&subpixel_tconv_kernel<128, 64, 8, 3>), 128, 64,
              (128 / 8) * (64 / 8));
}

}  // namespace

cudalabs::KernelLaunch describe_tconv_naive(const cudalabs::dcgan::TconvShape& shape) {
  validate_shape(shape, "lab09 tconv_naive");
  return {reinterpret_cast<const void*>(&naive_tconv_kernel), element_grid(shape.output_elements()),
          dim3(kElementThreads), 0};
}

cudalabs::KernelLaunch describe_tconv_branch_free(const cudalabs::dcgan::TconvShape& shape) {
  validate_shape(shape, "lab09 tconv_branch_free");
  return {reinterpret_cast<const void*>(&branch_free_tconv_kernel),
          element_grid(shape.output_elements()), dim3(kElementThreads), 0};
}

cudalabs::KernelLaunch describe_lower_tconv_input(const cudalabs::dcgan::TconvShape& shape) {
  cudalabs::dcgan::validate(shape, "lab09 lower_tconv_input");
  const std::size_t elements = static_cast<std::size_t>(shape.batch) * 4 * shape.height *
                               shape.width * 25 * static_cast<std::size_t>(shape.in_channels);
  return {reinterpret_cast<const void*>(&lower_input_kernel), element_grid(elements),
          dim3(kElementThreads), 0};
}

cudalabs::KernelLaunch describe_tconv_subpixel(const cudalabs::dcgan::TconvShape& shape) {
  return plan_subpixel(shape).launch;
}

void tconv_naive(const TconvArgs& args, cudaStream_t stream) {
  validate(args, "lab09 tconv_naive");
  const cudalabs::KernelLaunch c = describe_tconv_naive(args.shape);
  naive_tconv_kernel<<<c.grid, c.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab09 naive_tconv_kernel");
}

void tconv_branch_free(const TconvArgs& args, cudaStream_t stream) {
  validate(args, "lab09 tconv_branch_free");
  const cudalabs::KernelLaunch c = describe_tconv_branch_free(args.shape);
  branch_free_tconv_kernel<<<c.grid, c.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab09 branch_free_tconv_kernel");
}

void lower_tconv_input(const cudalabs::dcgan::TconvShape& shape, const float* input, float* lowered,
                       cudaStream_t stream) {
  cudalabs::dcgan::validate(shape, "lab09 lower_tconv_input");
  require(input && lowered, "lab09 lower_tconv_input: input and lowered must not be null");
  const cudalabs::KernelLaunch c = describe_lower_tconv_input(shape);
  lower_input_kernel<<<c.grid, c.block, 0, stream>>>(shape, input, lowered);
  CUDA_CHECK_LAUNCH("lab09 lower_input_kernel");
}

void tconv_subpixel(const TconvArgs& args, cudaStream_t stream) {
  validate(args, "lab09 tconv_subpixel");
  // The kernels read and write float4s.
  for (const void* pointer :
       {static_cast<const void*>(args.input), static_cast<const void*>(args.output)}) {
    require(reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0,
            "lab09 tconv_subpixel: input and output must be 16-byte aligned");
  }
  const SubpixelPlan plan = plan_subpixel(args.shape);
  const cudalabs::KernelLaunch& c = plan.launch;
  switch (plan.kernel) {
    case SubpixelKernel::kSmallK:
      subpixel_small_k_kernel<<<c.grid, c.block, c.dynamic_shared_bytes, stream>>>(args);
      CUDA_CHECK_LAUNCH("lab09 subpixel_small_k_kernel");
      return;
    case SubpixelKernel::kWide:
      subpixel_tconv_kernel<128, 256, 16, 1><<<c.grid, c.block, 0, stream>>>(args);
      break;
    case SubpixelKernel::kMedium:
      subpixel_tconv_kernel<128, 128, 8, kSubpixelMinBlocks><<<c.grid, c.block, 0, stream>>>(args);
      break;
    case SubpixelKernel::kNarrow:
      subpixel_tconv_kernel<128, 64, 8, 3><<<c.grid, c.block, 0, stream>>>(args);
      break;
  }
  CUDA_CHECK_LAUNCH("lab09 subpixel_tconv_kernel");
}

}  // namespace lab09
