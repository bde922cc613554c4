// Lab 11, step 7's launcher, shared by the student's and the solution's kernels.cu (each includes
// it after launch.cuh, with subpixel_wgmma_kernel<kWidth, kRowBlocks, T> defined): it checks the
// layer's sizes, takes subpixel_plan.h's plan (the tile, the halo, the stages, tiles by position),
// builds the two tensor maps (the activations in 4-D boxes of whole image rows, two rows higher
// with the halo, or of one pixel of BM images by position;
// the packed filter in 64 x 64 panels for BF16, the transposed one in boxes of BN rows for TF32)
// and, for BF16 tiles of image rows whose output is 16-byte aligned, a third: the output by phase
// (phase_output_map), through which the epilogue may have the copy engine store its tiles; it
// launches a persistent grid of at most one block per SM.
#pragma once

#include "dcgan_layers.h"
#include "subpixel_params.h"
#include "subpixel_plan.h"

#include <string>

// Whether this build's subpixel_wgmma_kernel takes tiles by position (p.by_position: step 7's
// last refinement, SubpixelPlan::by_position): a kernels.cu defines it as 1 before including this
// file when its kernel does (the solution's does).
#ifndef LAB11_SUBPIXEL_BY_POSITION
#define LAB11_SUBPIXEL_BY_POSITION 0
#endif

namespace lab11 {
namespace {

template <int kWidth, int kRowBlocks, class T>
void launch_subpixel(const SubpixelArgs<T>& args, const SubpixelPlan& plan, cudaStream_t stream) {
  const cudalabs::dcgan::TconvShape& shape = args.shape;
  SubpixelParams<T> p{};
  p.batch = shape.batch;
  p.height = shape.height;
  p.width = shape.width;
  p.in_channels = shape.in_channels;
  p.out_channels = shape.out_channels;
  const long long pixels = static_cast<long long>(shape.batch) * shape.height * shape.width;
  p.by_position = plan.by_position ? 1 : 0;
  p.positions = plan.by_position ? shape.height * shape.width : 1;
  // By position a tile is BM images, one box row each: its rows sit as if in one image of BM.
  p.row_tiles = static_cast<int>(plan.by_position ? ceil_div(shape.batch, plan.tile_pixels)
                                                  : ceil_div<long long>(pixels, plan.tile_pixels));
  p.column_tiles = shape.out_channels / kWidth;
  p.halo = plan.halo ? 1 : 0;
  p.image_pixels = plan.by_position ? plan.tile_pixels : plan.tile_rows * shape.width;
  p.box_pixels = plan.by_position ? plan.tile_pixels : plan.box_rows * shape.width;
  p.a_box_bytes = static_cast<int>(plan.a_box_bytes);
  p.stage_bytes = static_cast<int>(plan.stage_bytes);
  p.stages = plan.stages;
  p.output = args.output;
  p.scale = args.scale;
  p.shift = args.shift;
  p.relu = args.relu ? 1 : 0;
  const CUtensorMap a_map =
      activation_map(args.input, shape.batch, shape.height, shape.width, shape.in_channels,
                     plan.box_rows, plan.box_images, plan.by_position ? 1 : shape.width);
  CUtensorMap b_map{};
  if constexpr (sizeof(T) == 2) {
    b_map = bf16_tensor_map(args.filter, 25 * shape.in_channels, shape.out_channels,
                            shape.out_channels, SwizzledTile::BK);
  } else {
    b_map = fp32_tensor_map(args.filter, shape.out_channels, 25 * shape.in_channels,
                            25 * shape.in_channels, kWidth);
  }
  // The output by phase for the epilogue's copies (p.store_by_copy), where TMA can write it;
  // otherwise an unused map and the epilogue's own stores.
  CUtensorMap c_map{};
  if constexpr (sizeof(T) == 2) {
    if (plan.staging_bytes > 0 && aligned_to(args.output, 16)) {
      c_map =
          phase_output_map(args.output, shape.batch, shape.height, shape.width, shape.out_channels);
      p.store_by_copy = 1;
    }
  }
  const long long items = 4LL * p.positions * p.row_tiles * p.column_tiles;
  const dim3 grid = cudalabs::checked_grid(
      std::min<long long>(items, cudalabs::multiprocessor_count()), 1, 1, "lab11 tconv_subpixel");
  const auto kernel = &subpixel_wgmma_kernel<kWidth, kRowBlocks, T>;
  allow_shared(kernel, plan.shared_bytes);
  kernel<<<grid, SubpixelTile<kWidth, kRowBlocks>::kThreads, plan.shared_bytes, stream>>>(
      p, a_map, b_map, c_map);
  CUDA_CHECK_LAUNCH("lab11 subpixel_wgmma_kernel");
}

template <class T>
void tconv_subpixel(const SubpixelArgs<T>& args, cudaStream_t stream) {
  const cudalabs::dcgan::TconvShape& shape = args.shape;
  cudalabs::dcgan::validate(shape, "lab11 tconv_subpixel");
  constexpr int kChannels = stage_channels<T>();
  if (shape.in_channels % kChannels != 0)
    throw std::invalid_argument(detail::subpixel_error(
        "in_channels", shape.in_channels, "is not a multiple of " + std::to_string(kChannels)));
  const SubpixelPlan plan = plan_subpixel(shape, LAB11_SUBPIXEL_BY_POSITION != 0);
  if (!aligned_to(args.scale, 8) || !aligned_to(args.shift, 8) ||
      !aligned_to(args.output, 2 * sizeof(T)))
    throw std::invalid_argument(
        "lab11 tconv_subpixel: scale and shift must be 8-byte aligned, output two elements");
  require_capability(9, reinterpret_cast<const void*>(&subpixel_wgmma_kernel<128, 2, T>),
                     "lab11 tconv_subpixel");
  const bool two = plan.row_blocks == 2;
  if (plan.width == 64) {
    two ? launch_subpixel<64, 2>(args, plan, stream) : launch_subpixel<64, 1>(args, plan, stream);
  } else if (plan.width == 128) {
    two ? launch_subpixel<128, 2>(args, plan, stream) : launch_subpixel<128, 1>(args, plan, stream);
  } else {
    launch_subpixel<256, 1>(args, plan, stream);
  }
}

}  // namespace

std::string tconv_subpixel_unavailable() {
  return missing_capability(
      9, reinterpret_cast<const void*>(&subpixel_wgmma_kernel<128, 2, __nv_bfloat16>));
}

void tconv_subpixel_bf16(const SubpixelBf16Args& args, cudaStream_t stream) {
  tconv_subpixel(args, stream);
}

void tconv_subpixel_tf32(const SubpixelTf32Args& args, cudaStream_t stream) {
  tconv_subpixel(args, stream);
}

}  // namespace lab11
