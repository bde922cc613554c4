// Lab 11, step 7's launcher, shared by the student's and the solution's kernels.cu (each includes
// it after launch.cuh, with subpixel_wgmma_kernel<kWidth, T> defined): it checks the layer's
// sizes, picks the tile width from the output channels, builds the two tensor maps (the
// activations in 4-D boxes of whole image rows; the packed filter in 64 x 64 panels for BF16, the
// transposed one in boxes of BN rows for TF32) and launches a persistent grid of at most one block
// per SM.
#pragma once

#include "dcgan_layers.h"
#include "subpixel_params.h"

#include <string>

namespace lab11 {
namespace {

// The tile width for K output channels: one tile across K where it fits, else the widest that
// divides K; 0 when none does.
int subpixel_width(int out_channels) {
  if (out_channels == 64 || out_channels == 128) return out_channels;
  for (const int width : {256, 128, 64}) {
    if (out_channels % width == 0) return width;
  }
  return 0;
}

std::string subpixel_error(const char* what, int value, const std::string& expected) {
  return std::string("lab11 tconv_subpixel: ") + what + " = " + std::to_string(value) + " " +
         expected;
}

// A tile's pixels must be whole image rows: W divides them, and H x W divides them or is a
// multiple of them.
void check_tile_rows(const cudalabs::dcgan::TconvShape& shape, int tile_pixels) {
  const long long image_pixels = static_cast<long long>(shape.height) * shape.width;
  if (tile_pixels % shape.width != 0 ||
      (tile_pixels % image_pixels != 0 && image_pixels % tile_pixels != 0)) {
    throw std::invalid_argument(
        subpixel_error("width", shape.width,
                       "and height " + std::to_string(shape.height) + " do not cut into tiles of " +
                           std::to_string(tile_pixels) + " pixels of whole image rows"));
  }
}

template <int kWidth, class T>
void launch_subpixel(const SubpixelArgs<T>& args, cudaStream_t stream) {
  using Tile = SubpixelTile<kWidth>;
  const cudalabs::dcgan::TconvShape& shape = args.shape;
  const int image_pixels = shape.height * shape.width;
  SubpixelParams<T> p{};
  p.batch = shape.batch;
  p.height = shape.height;
  p.width = shape.width;
  p.in_channels = shape.in_channels;
  p.out_channels = shape.out_channels;
  p.box_rows = image_pixels >= Tile::BM ? Tile::BM / shape.width : shape.height;
  p.box_images = image_pixels >= Tile::BM ? 1 : Tile::BM / image_pixels;
  const long long pixels = static_cast<long long>(shape.batch) * image_pixels;
  p.row_tiles = static_cast<int>(ceil_div<long long>(pixels, Tile::BM));
  p.column_tiles = shape.out_channels / kWidth;
  p.output = args.output;
  p.scale = args.scale;
  p.shift = args.shift;
  p.relu = args.relu ? 1 : 0;
  const CUtensorMap a_map = activation_map(args.input, shape.batch, shape.height, shape.width,
                                           shape.in_channels, p.box_rows, p.box_images);
  CUtensorMap b_map{};
  if constexpr (sizeof(T) == 2) {
    b_map = bf16_tensor_map(args.filter, 25 * shape.in_channels, shape.out_channels,
                            shape.out_channels, SwizzledTile::BK);
  } else {
    b_map = fp32_tensor_map(args.filter, shape.out_channels, 25 * shape.in_channels,
                            25 * shape.in_channels, kWidth);
  }
  const long long items = 4LL * p.row_tiles * p.column_tiles;
  const dim3 grid = cudalabs::checked_grid(
      std::min<long long>(items, cudalabs::multiprocessor_count()), 1, 1, "lab11 tconv_subpixel");
  allow_shared(&subpixel_wgmma_kernel<kWidth, T>, Tile::kSharedBytes);
  subpixel_wgmma_kernel<kWidth, T>
      <<<grid, Tile::kThreads, Tile::kSharedBytes, stream>>>(p, a_map, b_map);
  CUDA_CHECK_LAUNCH("lab11 subpixel_wgmma_kernel");
}

template <class T>
void tconv_subpixel(const SubpixelArgs<T>& args, cudaStream_t stream) {
  const cudalabs::dcgan::TconvShape& shape = args.shape;
  cudalabs::dcgan::validate(shape, "lab11 tconv_subpixel");
  constexpr int kChannels = stage_channels<T>();
  if (shape.in_channels % kChannels != 0)
    throw std::invalid_argument(subpixel_error(
        "in_channels", shape.in_channels, "is not a multiple of " + std::to_string(kChannels)));
  const int width = subpixel_width(shape.out_channels);
  if (width == 0)
    throw std::invalid_argument(
        subpixel_error("out_channels", shape.out_channels, "is not a multiple of 64"));
  check_tile_rows(shape, width == 64 ? SubpixelTile<64>::BM : SubpixelTile<128>::BM);
  if (!aligned_to(args.scale, 8) || !aligned_to(args.shift, 8) ||
      !aligned_to(args.output, 2 * sizeof(T)))
    throw std::invalid_argument(
        "lab11 tconv_subpixel: scale and shift must be 8-byte aligned, output two elements");
  require_capability(9, reinterpret_cast<const void*>(&subpixel_wgmma_kernel<128, T>),
                     "lab11 tconv_subpixel");
  if (width == 64) {
    launch_subpixel<64>(args, stream);
  } else if (width == 128) {
    launch_subpixel<128>(args, stream);
  } else {
    launch_subpixel<256>(args, stream);
  }
}

}  // namespace

std::string tconv_subpixel_unavailable() {
  return missing_capability(
      9, reinterpret_cast<const void*>(&subpixel_wgmma_kernel<128, __nv_bfloat16>));
}

void tconv_subpixel_bf16(const SubpixelBf16Args& args, cudaStream_t stream) {
  tconv_subpixel(args, stream);
}

void tconv_subpixel_tf32(const SubpixelTf32Args& args, cudaStream_t stream) {
  tconv_subpixel(args, stream);
}

}  // namespace lab11
