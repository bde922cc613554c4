// Lab 11 solution, step 7: the DCGAN's transposed convolutions as implicit GEMMs on step 6's
// warp-specialized wgmma kernel. A work item is one phase's tile of BM input pixels by BN output
// channels; the persistent blocks walk the items heaviest phase first. For each k step the
// producer asks the copy engine for two things: a box of the activations (4-D, whole image rows:
// TMA writes zeros where the shifted rows and columns leave the image, which are exactly the taps
// that fall outside it), and B's panels of the packed filter. Where subpixel_plan.h chooses the
// halo, a k step is a column of taps (tx) and a channel block: the box is the tile's rows with
// one more above and below, at column offset input_offset(px, tx), and the column's taps_y taps
// read it at row offsets 0, 1 and 2, one B panel set each; otherwise a k step is one tap. The
// consumers are step 6's; only the epilogue differs: folded batch norm and ReLU, then stores to
// the phase's output pixels. The same kernel takes TF32 inputs (T = float): a stage then holds 32
// channels (still 128 bytes a pixel), and B comes K-major, one box of BN rows of the transposed
// filter per tap, since TF32's wgmma reads no transposed operand.
#pragma once

#include "hopper_kernels.cuh"
#include "subpixel_params.h"

namespace lab11 {
namespace {

// One item's place: phase z, first pixel, first output channel.
struct SubpixelItem {
  int z;
  long long pixel0;
  int col0;
};

template <class T>
__device__ __forceinline__ SubpixelItem subpixel_item(const SubpixelParams<T>& p, int item, int bm,
                                                      int bn) {
  const int per_phase = p.row_tiles * p.column_tiles;
  const int z = item / per_phase, in_phase = item % per_phase;
  return {z, static_cast<long long>(in_phase / p.column_tiles) * bm,
          (in_phase % p.column_tiles) * bn};
}

// Stage s of k step kt of `item`: channels kChannels (kt % (C / kChannels)) onwards of tap kt /
// (C / kChannels), or with the halo of every tap of column kt / (C / kChannels).
// [tap_box]
template <int BN, class T>
__device__ __forceinline__ void load_subpixel_stage(unsigned char* stage, std::uint64_t* full,
                                                    const CUtensorMap& a_map,
                                                    const CUtensorMap& b_map,
                                                    const SubpixelParams<T>& p,
                                                    const SubpixelItem& item, int kt, bool halo) {
  using namespace lab09::subpixel;
  constexpr int kChannels = stage_channels<T>();
  const int blocks_per_tap = p.in_channels / kChannels;
  const int step = kt / blocks_per_tap, c0 = (kt % blocks_per_tap) * kChannels;
  const int py = phase_row(item.z), px = phase_col(item.z);
  // The taps this stage serves: a column (ty = 0 .. taps(py) - 1) or one.
  const int tx = halo ? step : step % taps(px);
  const int first_ty = halo ? 0 : step / taps(px), tap_rows = halo ? taps(py) : 1;
  const long long image_pixels = static_cast<long long>(p.height) * p.width;
  const int n0 = static_cast<int>(item.pixel0 / image_pixels);
  const int i0 = static_cast<int>(item.pixel0 % image_pixels) / p.width;
  const int row0 = halo ? i0 - 1 : i0 + input_offset(py, first_ty);
  ptx::mbarrier_arrive_expect_bytes(full, p.a_box_bytes + tap_rows * BN * SwizzledTile::kRowBytes);
  ptx::tma_load_4d(stage, &a_map, full, c0, input_offset(px, tx), row0, n0);
  for (int t = 0; t < tap_rows; ++t) {
    const int tap = (first_ty + t) * taps(px) + tx;
    const int b_row = phase_first_row(item.z, p.in_channels) + tap * p.in_channels + c0;
    unsigned char* b_tile = stage + p.a_box_bytes + t * BN * SwizzledTile::kRowBytes;
    if constexpr (sizeof(T) == 2) {
#pragma unroll
      for (int panel = 0; panel < BN / SwizzledTile::kPanelColumns; ++panel)
        ptx::tma_load_2d(b_tile + panel * SwizzledTile::kPanelBytes, &b_map, full,
                         item.col0 + panel * SwizzledTile::kPanelColumns, b_row);
    } else {
      ptx::tma_load_2d(b_tile, &b_map, full, b_row, item.col0);  // BN rows, transposed filter
    }
  }
}
// [tap_box]

// One stage into a warpgroup's accumulators: for each of its kTaps taps, four k16 steps (BF16)
// or k8 steps (TF32) of each 64-pixel block. Tap t reads block h's A rows first_row - t image rows
// (row_bytes each: a multiple of the swizzle's 1024 bytes) past a_rows[h], and its B BN x 128
// bytes after tap t - 1's. Returns once the tensor cores are done with the stage. (kTaps is a
// template argument: a loop of wgmma the compiler cannot unroll gets fences injected into it.)
template <int kTaps, int kN, int kRowBlocks, class T>
__device__ __forceinline__ void multiply_taps(float (&acc)[kRowBlocks][kN / 2],
                                              const std::uint32_t (&a_rows)[kRowBlocks],
                                              std::uint32_t b_taps, int first_row, int row_bytes) {
#pragma unroll
  for (int h = 0; h < kRowBlocks; ++h) ptx::wgmma_hold(acc[h]);
  ptx::wgmma_fence();
#pragma unroll
  for (int t = 0; t < kTaps; ++t) {
    const std::uint32_t shift = (first_row - t) * row_bytes;
    const std::uint32_t b = b_taps + t * kN * SwizzledTile::kRowBytes;
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
      for (int h = 0; h < kRowBlocks; ++h) {
        if constexpr (sizeof(T) == 2) {
          ptx::wgmma_bf16<kN>(acc[h], a_descriptor(a_rows[h] + shift, kk), b_descriptor(b, kk), 1);
        } else {
          ptx::wgmma_tf32<kN>(acc[h], a_descriptor(a_rows[h] + shift, kk), a_descriptor(b, kk), 1);
        }
      }
    }
  }
  ptx::wgmma_commit();
  ptx::wgmma_wait<0>();
#pragma unroll
  for (int h = 0; h < kRowBlocks; ++h) ptx::wgmma_hold(acc[h]);
}

// A warpgroup's 64 pixels from pixel0 on: scale, shift, ReLU, BF16 pairs at output pixel
// (2 i + py, 2 j + px). Pixels past the batch (the last tile's) are not stored. A thread's two
// pixels are placed first (one 64-bit division each), then each column pair's scale and shift is
// read once for both: the stores could alias them, so the compiler would read them again after
// every store.
template <int kN, class T>
__device__ __forceinline__ void store_phase_pixels(const SubpixelParams<T>& p,
                                                   const float (&acc)[kN / 2], long long pixel0,
                                                   int col0, int z) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row_parity = lab09::subpixel::phase_row(z);
  const int column_parity = lab09::subpixel::phase_col(z);
  const long long image_pixels = static_cast<long long>(p.height) * p.width;
  T* out[2];
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const long long pixel = pixel0 + 16 * warp + lane / 4 + 8 * half;
    const long long n = pixel / image_pixels;
    const int in_image = static_cast<int>(pixel - n * image_pixels);
    const int i = in_image / p.width, j = in_image - i * p.width;
    out[half] = n < p.batch ? p.output + ((n * 2 * p.height + 2 * i + row_parity) * 2 * p.width +
                                          2 * j + column_parity) *
                                             p.out_channels
                            : nullptr;
  }
#pragma unroll
  for (int c8 = 0; c8 < kN / 8; ++c8) {
    const int col = col0 + 8 * c8 + 2 * (lane % 4);
    const float2 scale = *reinterpret_cast<const float2*>(p.scale + col);
    const float2 shift = *reinterpret_cast<const float2*>(p.shift + col);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      if (out[half] == nullptr) continue;
      float v0 = acc[4 * c8 + 2 * half] * scale.x + shift.x;
      float v1 = acc[4 * c8 + 2 * half + 1] * scale.y + shift.y;
      if (p.relu) {
        v0 = fmaxf(v0, 0.0f);
        v1 = fmaxf(v1, 0.0f);
      }
      if constexpr (sizeof(T) == 2) {
        *reinterpret_cast<__nv_bfloat162*>(out[half] + col) = __floats2bfloat162_rn(v0, v1);
      } else {
        *reinterpret_cast<float2*>(out[half] + col) =
            make_float2(ptx::round_to_tf32(v0), ptx::round_to_tf32(v1));
      }
    }
  }
}

template <int kWidth, int kRowBlocks, class T>
__global__ void __launch_bounds__(SubpixelTile<kWidth, kRowBlocks>::kThreads, 1)
    subpixel_wgmma_kernel(SubpixelParams<T> p, const __grid_constant__ CUtensorMap a_map,
                          const __grid_constant__ CUtensorMap b_map) {
#if LAB11_HOPPER_DEVICE_CODE
  using Tile = SubpixelTile<kWidth, kRowBlocks>;
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  unsigned char* shared = aligned_shared(dynamic_shared);
  const auto stage = [&](int s) { return shared + s * p.stage_bytes; };
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(shared + p.stages * p.stage_bytes);
  std::uint64_t* empty = full + Tile::kMaxStages;
  const int items = 4 * p.row_tiles * p.column_tiles;
  const bool halo = Tile::kMayHalo && p.halo;

  if (threadIdx.x == 0) {
    for (int s = 0; s < p.stages; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], Tile::kConsumers * 4);
    }
    ptx::fence_barrier_init();
  }
  __syncthreads();

  const int group = threadIdx.x / 128;
  if (group == 0) {
    ptx::set_max_registers<40, false>();
    if (threadIdx.x == 0) {
      int s = 0, phase = 0;
      for (int index = blockIdx.x; index < items; index += gridDim.x) {
        const SubpixelItem item = subpixel_item(p, index, Tile::BM, Tile::BN);
        const int k_steps = phase_k_steps(item.z, p.in_channels, stage_channels<T>(), halo);
        for (int kt = 0; kt < k_steps; ++kt) {
          ptx::mbarrier_wait(&empty[s], phase ^ 1);
          load_subpixel_stage<Tile::BN>(stage(s), &full[s], a_map, b_map, p, item, kt, halo);
          if (++s == p.stages) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    }
  } else {
    ptx::set_max_registers<232, true>();
    const int consumer = group - 1, lane = threadIdx.x % 32;
    constexpr int kConsumerRows = 64 * kRowBlocks;
    // Where block h's pixels sit in a stage's A box: the box holds each image's rows (two more
    // with the halo) one after the other, and a 64-pixel block stays in one image.
    std::uint32_t block_offset[kRowBlocks];
#pragma unroll
    for (int h = 0; h < kRowBlocks; ++h) {
      const int m = consumer * kConsumerRows + 64 * h;
      block_offset[h] =
          (m / p.image_pixels * p.box_pixels + m % p.image_pixels) * SwizzledTile::kRowBytes;
    }
    const int row_bytes = p.width * SwizzledTile::kRowBytes;  // one image row of the box
    int s = 0, phase = 0;
    for (int index = blockIdx.x; index < items; index += gridDim.x) {
      const SubpixelItem item = subpixel_item(p, index, Tile::BM, Tile::BN);
      const int py = lab09::subpixel::phase_row(item.z);
      const int k_steps = phase_k_steps(item.z, p.in_channels, stage_channels<T>(), halo);
      // With the halo, tap ty reads the box from row 1 + input_offset(py, ty): 0 for the last tap.
      const int tap_rows = halo ? lab09::subpixel::taps(py) : 1;
      const int first_row = halo ? 1 + lab09::subpixel::input_offset(py, 0) : 0;
      float acc[kRowBlocks][Tile::BN / 2];
#pragma unroll
      for (int h = 0; h < kRowBlocks; ++h) zero(acc[h]);
      for (int kt = 0; kt < k_steps; ++kt) {
        ptx::mbarrier_wait(&full[s], phase);
        const std::uint32_t base = ptx::shared_address(stage(s));
        std::uint32_t a_rows[kRowBlocks];
#pragma unroll
        for (int h = 0; h < kRowBlocks; ++h) a_rows[h] = base + block_offset[h];
        const std::uint32_t b_taps = base + p.a_box_bytes;
        if constexpr (!Tile::kMayHalo) {
          multiply_taps<1, Tile::BN, kRowBlocks, T>(acc, a_rows, b_taps, 0, 0);
        } else if (tap_rows == 3) {
          multiply_taps<3, Tile::BN, kRowBlocks, T>(acc, a_rows, b_taps, first_row, row_bytes);
        } else if (tap_rows == 2) {
          multiply_taps<2, Tile::BN, kRowBlocks, T>(acc, a_rows, b_taps, first_row, row_bytes);
        } else {
          multiply_taps<1, Tile::BN, kRowBlocks, T>(acc, a_rows, b_taps, first_row, row_bytes);
        }
        if (lane == 0) ptx::mbarrier_arrive(&empty[s]);
        if (++s == p.stages) {
          s = 0;
          phase ^= 1;
        }
      }
#pragma unroll
      for (int h = 0; h < kRowBlocks; ++h)
        store_phase_pixels<Tile::BN>(p, acc[h], item.pixel0 + consumer * kConsumerRows + 64 * h,
                                     item.col0, item.z);
    }
  }
#endif
  (void)p;
  (void)a_map;
  (void)b_map;
}

}  // namespace
}  // namespace lab11
