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
// filter per tap, since TF32's wgmma reads no transposed operand. Where a tile is 64 channels
// wide, the consumers turn the product around (channels as M, below): the stages stay.
#pragma once

#include "hopper_kernels.cuh"
#include "subpixel_params.h"
#include "subpixel_plan.h"

// This kernel takes tiles by position (dcgan_launch.cuh, SubpixelPlan::by_position).
#define LAB11_SUBPIXEL_BY_POSITION 1

namespace lab11 {
namespace {

// One item's place: phase z, first pixel (by position: first image), first output channel, and
// by position the input pixel i W + j its images share.
struct SubpixelItem {
  int z;
  long long pixel0;
  int col0;
  int position;
};

// The batch norm's scale and shift of every output channel, in shared memory (the kernel copies
// them there first): the epilogue reads them beside its global stores, which the compiler then
// knows cannot overwrite them, so it may read them ahead instead of waiting for each load between
// two stores (a fifth of tconv1's stall samples did, with the tensor cores idle).
struct ChannelAffine {
  const float* scale;
  const float* shift;
};

// Where the epilogue hands its tiles to the copy engine (p.store_by_copy): this consumer's 16 KiB
// of staging (two swizzled boxes of 64 pixels x 64 BF16 channels, kSubpixelStagingBytes) and the
// output by phase (phase_output_map). Each value stored by its own thread, a warp's store touched
// 8 pixels' 16 bytes: 8 half-used sectors, 32 stores a thread a tile, while the tensor cores
// waited; run twice, the epilogue added a quarter to tconv3's time and a fifth to tconv2's. A
// thread now writes its values to shared memory, and one TMA store a box writes them out while
// the consumers go on multiplying.
struct CopyOut {
  unsigned char* staging;
  const CUtensorMap* map;
};

// Where 16-byte chunk `chunk` (8 channels) of pixel row `row` of box `box` lies in a consumer's
// staging (shared address `staging`; boxes of 64 rows of 128 bytes, 8 KiB): the 128-byte swizzle
// the copy engine reads, the chunk index XOR the row's low 3 bits, which also puts the 8 rows a
// stmatrix writes at once in 8 different groups of banks.
__device__ __forceinline__ std::uint32_t staged_chunk(std::uint32_t staging, int box, int row,
                                                      int chunk) {
  return staging + box * 8192 + row * 128 + ((chunk ^ (row & 7)) * 16);
}

// Before a consumer writes its staging: the copy engine has read the last boxes stored from it.
__device__ __forceinline__ void wait_staging_free(int consumer) {
  if (threadIdx.x % 128 == 0) ptx::bulk_wait_group_read<0>();
  ptx::named_barrier_sync<128>(1 + consumer);
}

// After: every thread's writes are visible to the copy engine, then one thread stores `boxes`
// boxes of 64 pixels from global pixel `pixel` on (its row r and column j of the input), channels
// col0 on, of phase z.
template <class T>
__device__ __forceinline__ void store_staged_boxes(const SubpixelParams<T>& p, const CopyOut& out,
                                                   int consumer, int boxes, long long pixel,
                                                   int col0, int z, bool boxes_are_channels) {
  ptx::fence_proxy_async_shared();
  ptx::named_barrier_sync<128>(1 + consumer);
  if (threadIdx.x % 128 != 0) return;
  for (int box = 0; box < boxes; ++box) {
    // Boxes side by side: channels col0 + 64 box (the same pixels), or pixels 64 box further on.
    const long long first = boxes_are_channels ? pixel : pixel + 64LL * box;
    const int column = boxes_are_channels ? col0 + 64 * box : col0;
    ptx::tma_store_5d(out.map, out.staging + box * 8192, column, lab09::subpixel::phase_col(z),
                      static_cast<int>(first % p.width), lab09::subpixel::phase_row(z),
                      static_cast<int>(first / p.width));
  }
  ptx::bulk_commit_group();
}

// Items four at a time: the four phases of one tile (a group of pixels, or by position a group of
// images at one position), which read the same input, so the three after the first find it in L2
// (phase by phase, each layer's input came from DRAM four times: Nsight Compute had tconv3's L2
// hit rate at 74 %, 93 % in this order). The phase turns by one from each group to the next, so a
// block striding by a multiple of four items does not take the same phase every time.
template <class T>
__device__ __forceinline__ SubpixelItem subpixel_item(const SubpixelParams<T>& p, int item, int bm,
                                                      int bn) {
  const int group = item / 4, z = (item + group) % 4;
  const int column = group % p.column_tiles, rest = group / p.column_tiles;
  const int position = rest % p.positions, row_tile = rest / p.positions;
  return {z, static_cast<long long>(row_tile) * bm, column * bn, position};
}

// By position: the taps of phase z that reach inside the image from the item's pixel, a range of
// rows (ty) by a range of columns (tx).
struct ReachingTaps {
  int first_ty, rows, first_tx, columns;
};
template <class T>
__device__ __forceinline__ ReachingTaps item_reaching_taps(const SubpixelParams<T>& p,
                                                           const SubpixelItem& item) {
  namespace sub = lab09::subpixel;
  ReachingTaps r;
  const int i = item.position / p.width, j = item.position - i * p.width;
  sub::reaching_taps(sub::phase_row(item.z), i, p.height, r.first_ty, r.rows);
  sub::reaching_taps(sub::phase_col(item.z), j, p.width, r.first_tx, r.columns);
  return r;
}

// The item's k steps: one a tap (by position: a reaching tap) or a column of taps, times the
// channel blocks.
template <class T>
__device__ __forceinline__ int item_k_steps(const SubpixelParams<T>& p, const SubpixelItem& item,
                                            bool halo) {
  if (p.by_position) {
    const ReachingTaps r = item_reaching_taps(p, item);
    return r.rows * r.columns * (p.in_channels / stage_channels<T>());
  }
  return phase_k_steps(item.z, p.in_channels, stage_channels<T>(), halo);
}

// B's rows `row` .. row + 63 of the item's phase (a tap's channel block), its BN columns from
// col0, at b_tile: 64 x 64 panels (BF16), or BN rows of the transposed filter (TF32).
template <int BN, class T>
__device__ __forceinline__ void load_filter_tap(unsigned char* b_tile, std::uint64_t* full,
                                                const CUtensorMap& b_map,
                                                const SubpixelParams<T>& p,
                                                const SubpixelItem& item, int row) {
  const int b_row = phase_first_row(item.z, p.in_channels) + row;
  if constexpr (sizeof(T) == 2) {
#pragma unroll
    for (int panel = 0; panel < BN / SwizzledTile::kPanelColumns; ++panel)
      ptx::tma_load_2d(b_tile + panel * SwizzledTile::kPanelBytes, &b_map, full,
                       item.col0 + panel * SwizzledTile::kPanelColumns, b_row);
  } else {
    ptx::tma_load_2d(b_tile, &b_map, full, b_row, item.col0);  // BN rows, transposed filter
  }
}

// The producer's walk over one item's k steps, a tap (with the halo a column of taps) at a time,
// each tap's channel blocks in turn: for each, the activations' box at the tap's offset (the
// coordinates past the image's edge come back as zeros) and the tap's rows of the filter. What
// depends only on the item is worked out once: a stage costs its wait and its copies, where
// working each stage's tap out of its index took 64-bit divisions a stage.
// [tap_box]
template <int BN, class T>
__device__ __forceinline__ void produce_item(unsigned char* shared, std::uint64_t* full,
                                             std::uint64_t* empty, const CUtensorMap& a_map,
                                             const CUtensorMap& b_map, const SubpixelParams<T>& p,
                                             const SubpixelItem& item, bool halo, int& s,
                                             int& phase) {
  using namespace lab09::subpixel;
  constexpr int kChannels = stage_channels<T>();
  const int py = phase_row(item.z), px = phase_col(item.z);
  // One k step: the A box at (column, row, image) and tap_rows taps of B from filter row b_row.
  const auto step = [&](int column, int row, int image, int tap_rows, int b_row) {
    for (int c0 = 0; c0 < p.in_channels; c0 += kChannels) {
      ptx::mbarrier_wait(&empty[s], phase ^ 1);
      unsigned char* stage = shared + s * p.stage_bytes;
      ptx::mbarrier_arrive_expect_bytes(&full[s],
                                        p.a_box_bytes + tap_rows * BN * SwizzledTile::kRowBytes);
      ptx::tma_load_4d(stage, &a_map, &full[s], c0, column, row, image);
      for (int t = 0; t < tap_rows; ++t)
        load_filter_tap<BN>(stage + p.a_box_bytes + t * BN * SwizzledTile::kRowBytes, &full[s],
                            b_map, p, item, b_row + t * taps(px) * p.in_channels + c0);
      if (++s == p.stages) {
        s = 0;
        phase ^= 1;
      }
    }
  };
  if (p.by_position) {
    const ReachingTaps r = item_reaching_taps(p, item);
    const int i = item.position / p.width, j = item.position - i * p.width;
    for (int ty = r.first_ty; ty < r.first_ty + r.rows; ++ty)
      for (int tx = r.first_tx; tx < r.first_tx + r.columns; ++tx)
        step(j + input_offset(px, tx), i + input_offset(py, ty), static_cast<int>(item.pixel0), 1,
             (ty * taps(px) + tx) * p.in_channels);
    return;
  }
  const long long image_pixels = static_cast<long long>(p.height) * p.width;
  const int n0 = static_cast<int>(item.pixel0 / image_pixels);
  const int i0 = static_cast<int>(item.pixel0 - n0 * image_pixels) / p.width;
  if (halo) {  // a column of taps a step: the box from the row above the tile's
    for (int tx = 0; tx < taps(px); ++tx)
      step(input_offset(px, tx), i0 - 1, n0, taps(py), tx * p.in_channels);
    return;
  }
  for (int ty = 0; ty < taps(py); ++ty)
    for (int tx = 0; tx < taps(px); ++tx)
      step(input_offset(px, tx), i0 + input_offset(py, ty), n0, 1,
           (ty * taps(px) + tx) * p.in_channels);
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
  std::uint64_t a_first[kRowBlocks];
#pragma unroll
  for (int h = 0; h < kRowBlocks; ++h)
    a_first[h] = a_descriptor(a_rows[h] + first_row * row_bytes, 0);
  const std::uint64_t b_first = sizeof(T) == 2 ? b_descriptor(b_taps, 0) : a_descriptor(b_taps, 0);
  // k16 (k8) step kk: 32 bytes along A's rows; along B's 16 rows (BF16) or 32 bytes (TF32).
  constexpr int kBStep = sizeof(T) == 2 ? 16 * SwizzledTile::kRowBytes : 32;
#pragma unroll
  for (int t = 0; t < kTaps; ++t) {
    const std::uint64_t b = advanced(b_first, t * kN * SwizzledTile::kRowBytes);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
      for (int h = 0; h < kRowBlocks; ++h) {
        const std::uint64_t a = advanced(a_first[h], kk * 32 - t * row_bytes);
        if constexpr (sizeof(T) == 2) {
          ptx::wgmma_bf16<kN>(acc[h], a, advanced(b, kk * kBStep), 1);
        } else {
          ptx::wgmma_tf32<kN>(acc[h], a, advanced(b, kk * kBStep), 1);
        }
      }
    }
  }
  ptx::wgmma_commit();
  ptx::wgmma_wait<0>();
#pragma unroll
  for (int h = 0; h < kRowBlocks; ++h) ptx::wgmma_hold(acc[h]);
}

// A lane's pair of sums of columns col, col + 1 after the folded batch norm (their scales and
// shifts) and ReLU.
__device__ __forceinline__ float2 bn_relu_pair(float a, float b, float2 scale, float2 shift,
                                               bool relu) {
  float2 v = make_float2(a * scale.x + shift.x, b * scale.y + shift.y);
  if (relu) v = make_float2(fmaxf(v.x, 0.0f), fmaxf(v.y, 0.0f));
  return v;
}

// A warpgroup's 64 pixels from pixel0 on: scale, shift, ReLU, BF16 pairs at output pixel
// (2 i + py, 2 j + px). Pixels past the batch (the last tile's) are not stored. A thread's two
// pixels are placed first (one 64-bit division each), then each column pair's scale and shift is
// read once for both, from shared memory (ChannelAffine).
template <int kN, class T>
__device__ __forceinline__ void store_phase_pixels(const SubpixelParams<T>& p,
                                                   const ChannelAffine& bn,
                                                   const float (&acc)[kN / 2], long long pixel0,
                                                   int col0, int z, int position) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row_parity = lab09::subpixel::phase_row(z);
  const int column_parity = lab09::subpixel::phase_col(z);
  const long long image_pixels = static_cast<long long>(p.height) * p.width;
  T* out[2];
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    // A row of the tile: a pixel of the batch, or by position an image at pixel `position`.
    const long long pixel = pixel0 + 16 * warp + lane / 4 + 8 * half;
    const long long n = p.by_position ? pixel : pixel / image_pixels;
    const int in_image = p.by_position ? position : static_cast<int>(pixel - n * image_pixels);
    const int i = in_image / p.width, j = in_image - i * p.width;
    out[half] = n < p.batch ? p.output + ((n * 2 * p.height + 2 * i + row_parity) * 2 * p.width +
                                          2 * j + column_parity) *
                                             p.out_channels
                            : nullptr;
  }
#pragma unroll
  for (int c8 = 0; c8 < kN / 8; ++c8) {
    const int col = col0 + 8 * c8 + 2 * (lane % 4);
    const float2 scale = *reinterpret_cast<const float2*>(bn.scale + col);
    const float2 shift = *reinterpret_cast<const float2*>(bn.shift + col);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      if (out[half] == nullptr) continue;
      const float2 v =
          bn_relu_pair(acc[4 * c8 + 2 * half], acc[4 * c8 + 2 * half + 1], scale, shift, p.relu);
      if constexpr (sizeof(T) == 2) {
        *reinterpret_cast<__nv_bfloat162*>(out[half] + col) = __float22bfloat162_rn(v);
      } else {
        *reinterpret_cast<float2*>(out[half] + col) =
            make_float2(ptx::round_to_tf32(v.x), ptx::round_to_tf32(v.y));
      }
    }
  }
}

// store_phase_pixels through the copy engine (CopyOut): for each 64-pixel block and 128 of its
// channels, the batch norm (an FMA a value), ReLU and rounding (one cvt a pair, bf16_pair) into
// the staging's two boxes, then their TMA stores. The lane's fragments of two 8-column blocks (its
// rows and the rows 8 below) go out in one stmatrix.x4: matrix m is column block jb + m / 2 of
// pixel rows 16 warp + 8 (m % 2), whose row i lands at lane 8 m + i's address in the swizzled
// staging. Before, a 4-byte store a pair: the epilogue, which the tensor cores wait for, had four
// times the stores. Blocks past the batch are skipped (and a partial one's rows past it are not
// written).
template <bool kRelu, int kN, int kRowBlocks, class T>
__device__ __forceinline__ void copy_out_phase_pixels(const SubpixelParams<T>& p,
                                                      const ChannelAffine& bn, const CopyOut& out,
                                                      int consumer,
                                                      const float (&acc)[kRowBlocks][kN / 2],
                                                      long long pixel0, int col0, int z) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const long long pixels = static_cast<long long>(p.batch) * p.height * p.width;
  const int m = lane / 8, row = 16 * warp + 8 * (m % 2) + lane % 8;  // lane's row of matrix m
  const std::uint32_t staging = ptx::shared_address(out.staging);
#pragma unroll
  for (int h = 0; h < kRowBlocks; ++h) {
    if (pixel0 + 64 * h >= pixels) break;  // the same for the whole warpgroup
#pragma unroll
    for (int q = 0; q < (kN + 127) / 128; ++q) {
      constexpr int kBoxes = kN >= 128 ? 2 : 1;
      wait_staging_free(consumer);
#pragma unroll
      for (int jb = 0; jb < 8 * kBoxes; jb += 2) {
        std::uint32_t blocks[4];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c8 = 16 * q + jb + e;
          const int col = col0 + 8 * c8 + 2 * (lane % 4);
          const float2 scale = *reinterpret_cast<const float2*>(bn.scale + col);
          const float2 shift = *reinterpret_cast<const float2*>(bn.shift + col);
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const float* sums = &acc[h][4 * c8 + 2 * half];
            blocks[2 * e + half] = ptx::bf16_pair<kRelu>(fmaf(sums[0], scale.x, shift.x),
                                                         fmaf(sums[1], scale.y, shift.y));
          }
        }
        const int column_block = jb + m / 2;  // of the two boxes' 16
        ptx::stmatrix_x4<false>(blocks,
                                staged_chunk(staging, column_block / 8, row, column_block % 8));
      }
      store_staged_boxes(p, out, consumer, kBoxes, pixel0 + 64 * h, col0 + 128 * q, z, true);
    }
  }
}

// Channels as M. A tile 64 channels wide gives each k step two m64n64 products a consumer, each
// reading 64 rows of pixels and 64 of filter from shared memory for 64 x 64 multiply-adds a k (as
// many rows as outputs: Nsight Compute had tconv3 at 43 % of the tensor pipe, against 70 % at 256
// channels). Turned around, D^T = W^T A^T is one m64n128 product a consumer: the filter's rows of a
// stage are A (BF16: the panel, each k-row's channels side by side, MN-major; TF32: the transposed
// filter's box, K-major), the consumer's 128 pixel rows of the box are B (K-major), 192 rows for
// the same work instead of 256, and half the instructions. The stages are the same. The consumer's
// 128 pixels must lie in one image, whose rows are whole pieces of 8 pixels (for the epilogue).
template <int kWidth, int kRowBlocks>
inline constexpr bool kMayTurn = kWidth == 64 && kRowBlocks == 2;

template <class T>
__device__ __forceinline__ bool channels_as_m(const SubpixelParams<T>& p) {
  return !p.by_position && p.width % 8 == 0 && p.image_pixels % 128 == 0;
}

// multiply_taps turned around, without waiting: D^T (64 channels x 128 pixels) (+)= the taps'
// filter rows (A) times the consumer's pixel rows (B); `accumulate` false starts a tile. The caller
// waits (wgmma_wait) before it releases the stage or reads acc.
template <int kTaps, class T>
__device__ __forceinline__ void issue_taps_turned(float (&acc)[64], std::uint32_t pixel_rows,
                                                  std::uint32_t b_taps, int first_row,
                                                  int row_bytes, bool accumulate) {
  ptx::wgmma_hold(acc);
  ptx::wgmma_fence();
  const std::uint64_t pixels_first = a_descriptor(pixel_rows + first_row * row_bytes, 0);
  const std::uint64_t filter_first =
      sizeof(T) == 2 ? b_descriptor(b_taps, 0) : a_descriptor(b_taps, 0);
  constexpr int kFilterStep = sizeof(T) == 2 ? 16 * SwizzledTile::kRowBytes : 32;
#pragma unroll
  for (int t = 0; t < kTaps; ++t) {
    const std::uint64_t filter = advanced(filter_first, t * 64 * SwizzledTile::kRowBytes);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const std::uint64_t a = advanced(filter, kk * kFilterStep);
      const std::uint64_t b = advanced(pixels_first, kk * 32 - t * row_bytes);
      const int add = accumulate || t > 0 || kk > 0;
      if constexpr (sizeof(T) == 2) {
        ptx::wgmma_bf16_a_mn<128>(acc, a, b, add);
      } else {
        ptx::wgmma_tf32<128>(acc, a, b, add);
      }
    }
  }
  ptx::wgmma_commit();
  ptx::wgmma_hold(acc);
}

// Two 8 x 8 blocks of D^T, channel rows r and r + 8 of pixels c, c + 1 (r = lane / 4, c = 2 (lane
// % 4)), transposed across the warp (movmatrix, 16 bits at a time) and stored: lane l writes
// channels c, c + 1 of pixel l / 4 to out, and channels c + 8, c + 9 to out + 8.
__device__ __forceinline__ void store_transposed(__nv_bfloat16* out, float r0, float r1, float s0,
                                                 float s1) {
  const __nv_bfloat162 low = __floats2bfloat162_rn(r0, r1), high = __floats2bfloat162_rn(s0, s1);
  *reinterpret_cast<std::uint32_t*>(out) =
      ptx::movmatrix_transpose(*reinterpret_cast<const std::uint32_t*>(&low));
  *reinterpret_cast<std::uint32_t*>(out + 8) =
      ptx::movmatrix_transpose(*reinterpret_cast<const std::uint32_t*>(&high));
}
__device__ __forceinline__ void store_transposed(float* out, float r0, float r1, float s0,
                                                 float s1) {
  // A 32-bit block is two 16-bit blocks: the values' low halves and their high halves.
  const auto transpose_pair = [](float a, float b) {
    const std::uint32_t x = __float_as_uint(ptx::round_to_tf32(a));
    const std::uint32_t y = __float_as_uint(ptx::round_to_tf32(b));
    const std::uint32_t low = ptx::movmatrix_transpose(__byte_perm(x, y, 0x5410));
    const std::uint32_t high = ptx::movmatrix_transpose(__byte_perm(x, y, 0x7632));
    return make_float2(__uint_as_float(__byte_perm(low, high, 0x5410)),
                       __uint_as_float(__byte_perm(low, high, 0x7632)));
  };
  *reinterpret_cast<float2*>(out) = transpose_pair(r0, r1);
  *reinterpret_cast<float2*>(out + 8) = transpose_pair(s0, s1);
}

// A turned consumer's lane's two channel rows (r and r + 8): their batch norm's scale and shift.
struct ChannelRows {
  float scale_low, shift_low, scale_high, shift_high;
};

// The lane's sums of 8 x 8 block b of D^T after the folded batch norm and ReLU: its pixel pair in
// channel row r (v[0], v[1]) and in row r + 8 (v[2], v[3]).
__device__ __forceinline__ void turned_block_values(const float (&acc)[64], int b,
                                                    const ChannelRows& c, bool relu,
                                                    float (&v)[4]) {
  v[0] = acc[4 * b] * c.scale_low + c.shift_low;
  v[1] = acc[4 * b + 1] * c.scale_low + c.shift_low;
  v[2] = acc[4 * b + 2] * c.scale_high + c.shift_high;
  v[3] = acc[4 * b + 3] * c.scale_high + c.shift_high;
  if (relu) {
#pragma unroll
    for (float& value : v) value = fmaxf(value, 0.0f);
  }
}

// store_phase_pixels for D^T: warp w holds channels 16 w + lane / 4 (and 8 more) of pixel pairs;
// after scale, shift and ReLU, store_transposed writes each pixel's channels in the same runs as
// store_phase_pixels's. The 128 pixels are in one image, 8 to a piece of a row, so the output
// pointer steps on: 16 output columns a piece, and from past a row's end to the start of the row
// two below.
template <class T>
__device__ __forceinline__ void store_phase_pixels_turned(const SubpixelParams<T>& p,
                                                          const ChannelAffine& bn,
                                                          const float (&acc)[64], long long pixel0,
                                                          int col0, int z) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const long long image_pixels = static_cast<long long>(p.height) * p.width;
  const long long n = pixel0 / image_pixels;
  if (n >= p.batch) return;  // the whole consumer's pixels: the warp stays converged
  const int first = static_cast<int>(pixel0 - n * image_pixels);
  const int i = first / p.width;
  int j = first - i * p.width;
  const int channel = col0 + 16 * warp + lane / 4;
  const ChannelRows affine{bn.scale[channel], bn.shift[channel], bn.scale[channel + 8],
                           bn.shift[channel + 8]};
  const int row = 2 * i + lab09::subpixel::phase_row(z);
  const int column = 2 * j + lab09::subpixel::phase_col(z) + 2 * (lane / 4);
  T* out = p.output + ((n * 2 * p.height + row) * 2 * p.width + column) * p.out_channels + col0 +
           16 * warp + 2 * (lane % 4);
  const long long piece_step = 16LL * p.out_channels, row_step = 2LL * p.width * p.out_channels;
#pragma unroll
  for (int b = 0; b < 16; ++b) {
    float v[4];
    turned_block_values(acc, b, affine, p.relu, v);
    store_transposed(out, v[0], v[1], v[2], v[3]);
    out += piece_step;
    j += 8;
    if (j == p.width) {
      j = 0;
      out += row_step;
    }
  }
}

// store_phase_pixels_turned through the copy engine (CopyOut), in few instructions: it runs while
// the tensor cores multiply the next tile's first k step, yet took a fifth of tconv3's time
// (history/lab11_epilogue_stmatrix_s31_nvidia-h200, call 1). Each value's batch norm is one FMA,
// its ReLU and rounding one cvt a pair (bf16_pair), and the 8 x 8 blocks b, b + 1 (channel rows r
// and r + 8 of each) go into the staging in one stmatrix.x4.trans, which transposes them on the
// way: matrix q is block b + q / 2's rows r + 8 (q % 2), its column j pixel 8 (b + q / 2) + j's 8
// channels, one 16-byte chunk of that pixel's swizzled 128-byte row. Before: a movmatrix and a
// 4-byte store a pair.
template <bool kRelu, class T>
__device__ __forceinline__ void copy_out_phase_pixels_turned(const SubpixelParams<T>& p,
                                                             const ChannelAffine& bn,
                                                             const CopyOut& out, int consumer,
                                                             const float (&acc)[64],
                                                             long long pixel0, int col0, int z) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  if (pixel0 >= static_cast<long long>(p.batch) * p.height * p.width) return;  // the warpgroup's
  const int channel = col0 + 16 * warp + lane / 4;
  const ChannelRows affine{bn.scale[channel], bn.shift[channel], bn.scale[channel + 8],
                           bn.shift[channel + 8]};
  // Lane 8 q + j's row for blocks 0 and 1: pixel 8 (q / 2) + j, chunk 2 warp + q % 2; blocks
  // 2 u and 2 u + 1 are 16 rows (2 KiB) a step further on, across both boxes.
  const int q = lane / 8;
  const std::uint32_t row_address =
      staged_chunk(ptx::shared_address(out.staging), 0, 8 * (q / 2) + lane % 8, 2 * warp + q % 2);
  wait_staging_free(consumer);
#pragma unroll
  for (int u = 0; u < 8; ++u) {
    std::uint32_t blocks[4];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int b = 2 * u + h;
      blocks[2 * h] =
          ptx::bf16_pair<kRelu>(fmaf(acc[4 * b], affine.scale_low, affine.shift_low),
                                fmaf(acc[4 * b + 1], affine.scale_low, affine.shift_low));
      blocks[2 * h + 1] =
          ptx::bf16_pair<kRelu>(fmaf(acc[4 * b + 2], affine.scale_high, affine.shift_high),
                                fmaf(acc[4 * b + 3], affine.scale_high, affine.shift_high));
    }
    ptx::stmatrix_x4<true>(blocks, row_address + u * 2048);
  }
  store_staged_boxes(p, out, consumer, 2, pixel0, col0, z, false);
}

// The turned consumers' walk: like consume_items's, but a tile's epilogue waits for the first k
// step of the next tile to be issued, and runs while the tensor cores multiply it (the epilogue
// drew a third of a 64-channel tile's stall samples). Its sums wait in `done` meanwhile: 64 more
// registers.
template <class Tile, class T>
__device__ __forceinline__ void consume_items_turned(const SubpixelParams<T>& p,
                                                     const ChannelAffine& bn, const CopyOut& out,
                                                     unsigned char* shared, std::uint64_t* full,
                                                     std::uint64_t* empty, bool halo) {
  // Broadcast from lane 0: the compiler then knows the warpgroup is the same across the warp.
  const int consumer = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0) - 1;
  const int lane = threadIdx.x % 32;
  const int items = 4 * p.positions * p.row_tiles * p.column_tiles;
  const int m = consumer * 128;  // the consumer's first pixel in the tile, within one image
  const std::uint32_t pixel_offset =
      (m / p.image_pixels * p.box_pixels + m % p.image_pixels) * SwizzledTile::kRowBytes;
  const int row_bytes = p.width * SwizzledTile::kRowBytes;
  const std::uint32_t shared_base = ptx::shared_address(shared);
  float acc[64], done[64];
  zero(acc);
  SubpixelItem finished{-1, 0, 0, 0};  // z < 0: no tile waits for its epilogue
  const auto epilogue = [&] {
    if constexpr (sizeof(T) == 2) {
      if (p.store_by_copy) {
        if (p.relu) {
          copy_out_phase_pixels_turned<true>(p, bn, out, consumer, done, finished.pixel0,
                                             finished.col0, finished.z);
        } else {
          copy_out_phase_pixels_turned<false>(p, bn, out, consumer, done, finished.pixel0,
                                              finished.col0, finished.z);
        }
        return;
      }
    }
    store_phase_pixels_turned(p, bn, done, finished.pixel0, finished.col0, finished.z);
  };
  int s = 0, phase = 0;
  for (int index = blockIdx.x; index < items; index += gridDim.x) {
    const SubpixelItem item = subpixel_item(p, index, Tile::BM, Tile::BN);
    const int py = lab09::subpixel::phase_row(item.z);
    const int k_steps = item_k_steps(p, item, halo);
    const int tap_rows = halo ? lab09::subpixel::taps(py) : 1;
    const int first_row = halo ? 1 + lab09::subpixel::input_offset(py, 0) : 0;
    for (int kt = 0; kt < k_steps; ++kt) {
      ptx::mbarrier_wait(&full[s], phase);
      const std::uint32_t base = shared_base + s * p.stage_bytes;
      const std::uint32_t pixels = base + pixel_offset, b_taps = base + p.a_box_bytes;
      if (tap_rows == 3) {
        issue_taps_turned<3, T>(acc, pixels, b_taps, first_row, row_bytes, kt > 0);
      } else if (tap_rows == 2) {
        issue_taps_turned<2, T>(acc, pixels, b_taps, first_row, row_bytes, kt > 0);
      } else {
        issue_taps_turned<1, T>(acc, pixels, b_taps, first_row, row_bytes, kt > 0);
      }
      if (kt == 0 && finished.z >= 0) epilogue();
      ptx::wgmma_wait<0>();
      ptx::wgmma_hold(acc);
      if (lane == 0) ptx::mbarrier_arrive(&empty[s]);
      if (++s == p.stages) {
        s = 0;
        phase ^= 1;
      }
    }
#pragma unroll
    for (int v = 0; v < 64; ++v) done[v] = acc[v];
    finished = {item.z, item.pixel0 + m, item.col0, 0};
  }
  if (finished.z >= 0) epilogue();
}

// The consumers' walk over the items: wait for each k step's stage, multiply it, release it; then
// the epilogue.
template <class Tile, class T>
__device__ __forceinline__ void consume_items(const SubpixelParams<T>& p, const ChannelAffine& bn,
                                              const CopyOut& out, unsigned char* shared,
                                              std::uint64_t* full, std::uint64_t* empty,
                                              bool halo) {
  constexpr int kRowBlocks = Tile::BM / 128;
  // Broadcast from lane 0: the compiler then knows the warpgroup is the same across the warp, and
  // keeps what follows from it (the descriptors) in uniform registers.
  const int consumer = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0) - 1;
  const int lane = threadIdx.x % 32;
  const int items = 4 * p.positions * p.row_tiles * p.column_tiles;
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
    const int k_steps = item_k_steps(p, item, halo);
    // With the halo, tap ty reads the box from row 1 + input_offset(py, ty): 0 for the last tap.
    const int tap_rows = halo ? lab09::subpixel::taps(py) : 1;
    const int first_row = halo ? 1 + lab09::subpixel::input_offset(py, 0) : 0;
    float acc[kRowBlocks][Tile::BN / 2];
#pragma unroll
    for (int h = 0; h < kRowBlocks; ++h) zero(acc[h]);
    for (int kt = 0; kt < k_steps; ++kt) {
      ptx::mbarrier_wait(&full[s], phase);
      const std::uint32_t base = ptx::shared_address(shared + s * p.stage_bytes);
      const std::uint32_t b_taps = base + p.a_box_bytes;
      std::uint32_t a_rows[kRowBlocks];
#pragma unroll
      for (int h = 0; h < kRowBlocks; ++h) a_rows[h] = base + block_offset[h];
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
    const long long pixel0 = item.pixel0 + consumer * kConsumerRows;
    if constexpr (sizeof(T) == 2) {
      if (p.store_by_copy) {
        if (p.relu) {
          copy_out_phase_pixels<true, Tile::BN, kRowBlocks>(p, bn, out, consumer, acc, pixel0,
                                                            item.col0, item.z);
        } else {
          copy_out_phase_pixels<false, Tile::BN, kRowBlocks>(p, bn, out, consumer, acc, pixel0,
                                                             item.col0, item.z);
        }
        continue;
      }
    }
#pragma unroll
    for (int h = 0; h < kRowBlocks; ++h)
      store_phase_pixels<Tile::BN>(p, bn, acc[h], pixel0 + 64 * h, item.col0, item.z,
                                   item.position);
  }
}

template <int kWidth, int kRowBlocks, class T>
__global__ void __launch_bounds__(SubpixelTile<kWidth, kRowBlocks>::kThreads, 1)
    subpixel_wgmma_kernel(SubpixelParams<T> p, const __grid_constant__ CUtensorMap a_map,
                          const __grid_constant__ CUtensorMap b_map,
                          const __grid_constant__ CUtensorMap c_map) {
#if LAB11_HOPPER_DEVICE_CODE
  using Tile = SubpixelTile<kWidth, kRowBlocks>;
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  unsigned char* shared = aligned_shared(dynamic_shared);
  const auto stage = [&](int s) { return shared + s * p.stage_bytes; };
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(shared + p.stages * p.stage_bytes);
  std::uint64_t* empty = full + Tile::kMaxStages;
  const int items = 4 * p.positions * p.row_tiles * p.column_tiles;
  const bool halo = Tile::kMayHalo && p.halo;

  // After the barriers, in the plan's fixed bytes (SubpixelPlan::fixed_bytes).
  float* const channel_scale = reinterpret_cast<float*>(empty + Tile::kMaxStages);
  float* const channel_shift = channel_scale + p.out_channels;
  for (int c = threadIdx.x; c < p.out_channels; c += blockDim.x) {
    channel_scale[c] = p.scale[c];
    channel_shift[c] = p.shift[c];
  }
  const ChannelAffine bn{channel_scale, channel_shift};
  // Then, 1024-aligned, each consumer's staging (SubpixelPlan::staging_bytes).
  unsigned char* const staging = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(channel_shift + p.out_channels) + 1023) / 1024 * 1024);
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
        produce_item<Tile::BN>(shared, full, empty, a_map, b_map, p, item, halo, s, phase);
      }
    }
  } else {
    ptx::set_max_registers<232, true>();
    const CopyOut out{staging + (group - 1) * (kSubpixelStagingBytes / 2), &c_map};
    if constexpr (kMayTurn<kWidth, kRowBlocks>) {
      if (channels_as_m(p)) {
        consume_items_turned<Tile, T>(p, bn, out, shared, full, empty, halo);
      } else {
        consume_items<Tile, T>(p, bn, out, shared, full, empty, halo);
      }
    } else {
      consume_items<Tile, T>(p, bn, out, shared, full, empty, halo);
    }
    // The last boxes' stores read their staging before the block's shared memory goes.
    if (p.store_by_copy && threadIdx.x % 128 == 0) ptx::bulk_wait_group<0>();
  }
#endif
  (void)p;
  (void)a_map;
  (void)b_map;
  (void)c_map;
}

}  // namespace
}  // namespace lab11
