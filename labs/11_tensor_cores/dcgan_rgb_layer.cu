// Lab 11's DCGAN, the RGB layer on tensor cores (given code, the same in both builds). Its 3 output
// channels are too few for any tile's columns when each output pixel gathers its taps (a phase's
// GEMM has K = 3 columns: mma.sync's 8 would be 5/8 idle, and the kernel would read every input
// 6.25 times from shared memory for 8 columns of work). So the GEMM is turned around: each input
// pixel is scattered. Its C channels times the whole filter, C rows by 25 taps x K columns (75 for
// RGB: 10 of mma.sync's 8-wide tiles, 94 % used), give the pixel's 75 contributions, which land on
// the 5 x 5 output pixels around (2 i, 2 j); an output row then adds its 4 to 9 contributions from
// the 2 or 3 input rows that reach it, in a fixed order (the same bits on every run).
// - A block walks whole images, row by row and image after image (its images are blockIdx.x +
//   gridDim.x t): cp.async keeps kRgbAhead input rows in flight, one row's products are computed
//   into a ring of the last 3 rows' products in shared memory, and the output rows the new row
//   completes (2 i - 1 and 2 i) are summed, biased, passed through tanh and stored whole.
// - Each warp holds one group of the filter's column tiles in registers for its whole life (at
//   most kFragmentRegisters registers a thread, so that four blocks of four warps fit an SM);
//   a block has one or more warps per group, which split the row's 16-pixel tiles.
// - BF16 inputs run m16n8k16, TF32 inputs m16n8k8, their A fragments one ldmatrix.x4 a k-step;
//   the pixels' chunks are swizzled in shared memory (PixelLayout) so that ldmatrix's 8 rows hit
//   distinct banks.
// - Everything a step would divide (its image and row, its slots, a thread's chunks and output
//   pixels) is counted or worked out once: the layer is bound by issued instructions.
#include "common/async_copy.cuh"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "dcgan_layers.h"
#include "labs/09_dcgan/subpixel.h"
#include "tensor_core_ptx.cuh"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace lab11 {
namespace {

using cudalabs::dcgan::TconvShape;
namespace subpixel = lab09::subpixel;

constexpr int kTaps = 25;        // the 5 x 5 filter
constexpr int kTilePixels = 16;  // an mma's rows
constexpr int kRgbAhead = 3;     // input rows in flight while one is multiplied
constexpr int kInputSlots = kRgbAhead + 1;
constexpr int kProductSlots = 3;        // output row 2 i - 1 needs the products of rows i - 2 .. i
constexpr int kFragmentRegisters = 40;  // a thread's registers of the filter
constexpr int kWarpsPerBlock = 4;       // at least, when the filter's groups are fewer
constexpr int kMaxOutChannels = 8;      // K: one emit_rows each

/// The mma of element type T. Its A fragments come from ldmatrix.x4 in both types: each k-step is
/// two 16-byte chunks of a pixel's channels (8 BF16 or 4 TF32 each), rows g and g + 8, and the
/// 32-bit TF32 values land as ldmatrix's pairs of 16-bit ones, where m16n8k8 expects them.
template <class T>
struct RgbMma;

template <>
struct RgbMma<__nv_bfloat16> {
  static constexpr int kStepsPer32 = 2;  // m16n8k16
  /// The channel of step `step` that B's register `which` (k-indices 2 q, 2 q + 1; or + 8) starts.
  __device__ static int b_channel(int step, int q, int which) {
    return 16 * step + 2 * q + 8 * which;
  }
  /// B's register: the channel pair (c, c + 1) at column n, rounded to BF16.
  __device__ static std::uint32_t b_register(const float* w, int stride) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(w[0], w[stride]);
    return *reinterpret_cast<const std::uint32_t*>(&pair);
  }
  __device__ static void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                             std::uint32_t b1) {
    ptx::mma_m16n8k16_bf16(d, a, b0, b1);
  }
};

template <>
struct RgbMma<float> {
  static constexpr int kStepsPer32 = 4;  // m16n8k8
  /// k-index q (b0) or q + 4 (b1) of step `step`.
  __device__ static int b_channel(int step, int q, int which) { return 8 * step + q + 4 * which; }
  __device__ static std::uint32_t b_register(const float* w, int) {
    return __float_as_uint(ptx::round_to_tf32(w[0]));
  }
  __device__ static void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                             std::uint32_t b1) {
    ptx::mma_m16n8k8_tf32(d, a, b0, b1);
  }
};

/// Column tiles a warp holds with C = 32 kGroups32 channels of T.
template <class T, int kGroups32>
__host__ __device__ constexpr int max_group_tiles() {
  constexpr int kTiles = kFragmentRegisters / (2 * kGroups32 * RgbMma<T>::kStepsPer32);
  return kTiles > 0 ? kTiles : 1;
}

/// A pixel's bytes in an input row in shared memory, and how its 16-byte chunks are swizzled:
/// ldmatrix reads one chunk of 8 consecutive pixels at once, which, 128 or 64 bytes apart, would
/// share banks; XOR-ing the chunk's index with pixel mod 8 (or, 64 bytes apart, with (pixel / 2)
/// mod 4) spreads them over all 32 (the XOR stays within the pixel's aligned groups of 8 or 4
/// chunks).
template <class T, int kGroups32>
struct PixelLayout {
  static constexpr int kBytes = kGroups32 * 32 * static_cast<int>(sizeof(T));
  static constexpr int kChunks = kBytes / 16;
  __host__ __device__ static constexpr int swizzle(int pixel) {
    return kBytes % 128 == 0 ? pixel % 8 : pixel / 2 % 4;
  }
  __host__ __device__ static constexpr int offset(int pixel, int chunk) {
    return pixel * kBytes + 16 * (chunk ^ swizzle(pixel));
  }
};

/// Warp groups holding `per_group` column tiles each for `tiles` tiles (the last group's tiles
/// past them hold zero filters: no branch per tile), and the warps of a block: one or more per
/// group, at least kWarpsPerBlock in all.
struct TileGroups {
  int groups = 0;
  int warps = 0;
};
constexpr TileGroups split_tiles(int tiles, int per_group) {
  TileGroups split;
  split.groups = (tiles + per_group - 1) / per_group;
  split.warps = split.groups * ((kWarpsPerBlock + split.groups - 1) / split.groups);
  return split;
}

/// Threads of the largest block the kernel is launched with (K = 1 .. 8), for its register bound.
template <class T, int kGroups32>
constexpr int max_threads() {
  int most = 0;
  for (int k_out = 1; k_out <= kMaxOutChannels; ++k_out)
    most = std::max(
        most, 32 * split_tiles((kTaps * k_out + 7) / 8, max_group_tiles<T, kGroups32>()).warps);
  return most;
}

/// The launch's sizes, worked out on the host.
struct RgbPlan {
  int groups = 0;          // warps' groups of column tiles, max_group_tiles each
  int slices = 0;          // warps per group, splitting a row's pixel tiles
  int row_pixels = 0;      // a row's pixels rounded up to whole tiles
  int product_stride = 0;  // floats between two pixels' products
  std::size_t shared_bytes = 0;
  int threads() const { return 32 * groups * slices; }
};

template <class T>
struct RgbArgs {
  TconvShape shape;
  RgbPlan plan;
  const T* input;
  const float* packed;  // subpixel.h's packed filter, FP32
  const float* bias;
  float* output;
};

// Filter value (c, n) of the scattered GEMM: n = (r 5 + s) K + k, zero past 25 K columns.
__device__ __forceinline__ const float* filter_value(const TconvShape& shape, const float* packed,
                                                     int c, int n, bool& real) {
  const int k_out = shape.out_channels, tap = n / k_out, k = n % k_out;
  const int r = tap / 5, s = tap % 5;
  real = n < kTaps * k_out;
  if (!real) return packed;
  // Filter row r serves output parity 0 as tap (r - 1) / 2 when odd, parity 1 as tap r / 2 when
  // even (subpixel.h's filter_index), and likewise for columns.
  const int py = r % 2 == 1 ? 0 : 1, px = s % 2 == 1 ? 0 : 1;
  const int ty = py == 0 ? (r - 1) / 2 : r / 2, tx = px == 0 ? (s - 1) / 2 : s / 2;
  const int z = (1 - py) * 2 + (1 - px);
  const std::size_t row =
      static_cast<std::size_t>(ty * subpixel::taps(px) + tx) * shape.in_channels + c;
  return packed + subpixel::phase_start(z, shape.in_channels, k_out) + row * k_out + k;
}

// A block's walk over its images' input rows, image after image (blockIdx.x + gridDim.x t), kept
// as counters: no division per row.
struct RowCursor {
  long long image;
  int row = 0;
  __device__ void advance(int height) {
    if (++row == height) {
      row = 0;
      image += gridDim.x;
    }
  }
};

// This thread's share of copying an input row: the 16-byte chunk it copies of every pixel it
// takes (pixels first_pixel, + pixel_step, ...), the same for every row.
template <class T, int kGroups32>
struct RowCopy {
  using Layout = PixelLayout<T, kGroups32>;
  static constexpr int kChunksPerPixel = Layout::kChunks;
  int first_pixel, pixel_step, chunk;
  __device__ RowCopy()
      : first_pixel(threadIdx.x / kChunksPerPixel),
        pixel_step(blockDim.x / kChunksPerPixel),
        chunk(threadIdx.x % kChunksPerPixel) {
    if (threadIdx.x >= pixel_step * kChunksPerPixel) first_pixel = 1 << 30;  // a partial pass's
  }
  /// Starts copying input row `at` into `slot` (every thread of the block).
  __device__ void start(const RgbArgs<T>& a, const RowCursor& at, unsigned char* slot) const {
    const int width = a.shape.width;
    const unsigned char* row = reinterpret_cast<const unsigned char*>(
        a.input + (at.image * a.shape.height + at.row) * width * a.shape.in_channels);
    for (int pixel = first_pixel; pixel < width; pixel += pixel_step)
      cudalabs::async_copy_16_zero_fill(slot + Layout::offset(pixel, chunk),
                                        row + (pixel * kChunksPerPixel + chunk) * 16LL, 16);
  }
};

// tanh to within a few FP32 ulps of 1 (absolute), in 4 instructions instead of tanhf's 20: the
// layer's tanh is a third of its instructions. Clamped where tanh is 1 in FP32, so that exp stays
// finite.
__device__ __forceinline__ float fast_tanh(float v) {
  const float e = __expf(2.0f * fminf(fmaxf(v, -15.0f), 15.0f));
  return 1.0f - __fdividef(2.0f, 1.0f + e);
}

// One output pixel's K channels: row parity kYOdd, column parity kXOdd, column 2 jx + kXOdd.
// Its contributions come from input rows `rows` (row i - t for r's t-th tap: nullptr outside the
// image) and columns jx + 1 - t or jx - t, added r ascending, then s: every offset but the
// column's is a constant, and only the image's edge columns skip one.
template <int kK, bool kYOdd, bool kXOdd>
__device__ __forceinline__ void emit_pixel(const float* const (&rows)[3], int jx, int width,
                                           int product_stride, const float* __restrict__ bias,
                                           float* __restrict__ out) {
  constexpr int kRTaps = kYOdd ? 3 : 2, kSTaps = kXOdd ? 3 : 2;
  float sum[kK] = {};
#pragma unroll
  for (int tr = 0; tr < kRTaps; ++tr) {
    const int r = kYOdd ? 2 * tr : 1 + 2 * tr;
    if (rows[tr] == nullptr) continue;
#pragma unroll
    for (int ts = 0; ts < kSTaps; ++ts) {
      const int s = kXOdd ? 2 * ts : 1 + 2 * ts;
      const int j = kXOdd ? jx + 1 - ts : jx - ts;
      if (j < 0 || j >= width) continue;
      const float* p = rows[tr] + j * product_stride + (r * 5 + s) * kK;
#pragma unroll
      for (int k = 0; k < kK; ++k) sum[k] += p[k];
    }
  }
#pragma unroll
  for (int k = 0; k < kK; ++k) out[k] = fast_tanh(sum[k] + bias[k]);
}

// Output rows first_y .. last_y of image n (K = kK channels), one pixel a thread at a time: a row's
// even columns, then its odd ones (so that a warp's pixels share their taps when W is a multiple
// of 32), stored where the image has them.
// This thread's first output pixel of a run of rows and its stride, as (row, column) offsets,
// worked out once: no division per pixel.
struct PixelWalk {
  int row, column, row_step, column_step;
  __device__ explicit PixelWalk(int columns)
      : row(threadIdx.x / columns),
        column(threadIdx.x % columns),
        row_step(blockDim.x / columns),
        column_step(blockDim.x % columns) {}
};

template <int kK>
__device__ __forceinline__ void emit_rows(const TconvShape& shape, const PixelWalk& walk,
                                          int product_stride, const float* products, int row_floats,
                                          long long n, int first_y, int last_y,
                                          const float* __restrict__ bias, float* __restrict__ out) {
  const int width = shape.width, columns = 2 * width;
  int column = walk.column;
  for (int y = first_y + walk.row; y <= last_y;) {
    const float* rows[3];
#pragma unroll
    for (int t = 0; t < 3; ++t) {
      const int i = (y + 1) / 2 - t;
      rows[t] = i >= 0 && i < shape.height ? products + (i % kProductSlots) * row_floats : nullptr;
    }
    const bool x_odd = column >= width;
    const int jx = x_odd ? column - width : column;
    float* o = out + ((n * 2 * shape.height + y) * columns + 2 * jx + x_odd) * kK;
    if (y % 2 == 1) {
      if (x_odd)
        emit_pixel<kK, true, true>(rows, jx, width, product_stride, bias, o);
      else
        emit_pixel<kK, true, false>(rows, jx, width, product_stride, bias, o);
    } else {
      if (x_odd)
        emit_pixel<kK, false, true>(rows, jx, width, product_stride, bias, o);
      else
        emit_pixel<kK, false, false>(rows, jx, width, product_stride, bias, o);
    }
    column += walk.column_step;
    y += walk.row_step;
    if (column >= columns) {
      column -= columns;
      ++y;
    }
  }
}

// emit_rows for the layer's K (1 .. kMaxOutChannels), a branch the whole block takes alike.
template <int kK = 1>
__device__ __forceinline__ void emit_rows_of(int k_out, const TconvShape& shape,
                                             const PixelWalk& walk, int product_stride,
                                             const float* products, int row_floats, long long n,
                                             int first_y, int last_y,
                                             const float* __restrict__ bias,
                                             float* __restrict__ out) {
  if constexpr (kK < kMaxOutChannels) {
    if (k_out != kK)
      return emit_rows_of<kK + 1>(k_out, shape, walk, product_stride, products, row_floats, n,
                                  first_y, last_y, bias, out);
  }
  emit_rows<kK>(shape, walk, product_stride, products, row_floats, n, first_y, last_y, bias, out);
}

// The bound keeps 16 warps an SM (4 blocks of the RGB layer's 4) in registers.
template <class T, int kGroups32>
__global__ void __launch_bounds__(max_threads<T, kGroups32>(),
                                  std::max(1, 512 / max_threads<T, kGroups32>()))
    rgb_scatter_kernel(RgbArgs<T> a) {
  using Mma = RgbMma<T>;
  constexpr int kSteps = kGroups32 * Mma::kStepsPer32;
  constexpr int kTiles = max_group_tiles<T, kGroups32>();  // this warp's column tiles
  extern __shared__ __align__(16) unsigned char shared[];
  const TconvShape& shape = a.shape;
  const RgbPlan& plan = a.plan;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int group = warp % plan.groups, slice = warp / plan.groups;
  const int first_column = 8 * kTiles * group;

  // This warp's B fragments: column first_column + 8 t + g, every k-step, built once.
  std::uint32_t b[kTiles][kSteps][2];
#pragma unroll
  for (int t = 0; t < kTiles; ++t) {
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
#pragma unroll
      for (int which = 0; which < 2; ++which) {
        const int c = Mma::b_channel(step, q, which);
        bool real = false;
        const float* w = filter_value(shape, a.packed, c, first_column + 8 * t + g, real);
        // BF16 pairs channels c and c + 1, whose values sit K apart in the packed filter.
        b[t][step][which] = real ? Mma::b_register(w, shape.out_channels) : 0u;
      }
    }
  }

  const int row_tiles = plan.row_pixels / kTilePixels;
  using Layout = PixelLayout<T, kGroups32>;
  const int input_slot_bytes = plan.row_pixels * Layout::kBytes;
  const int row_floats = plan.row_pixels * plan.product_stride;
  unsigned char* inputs = shared;
  float* products = reinterpret_cast<float*>(shared + kInputSlots * input_slot_bytes);
  const long long images =
      (shape.batch - 1 - static_cast<long long>(blockIdx.x)) / gridDim.x + 1;  // blockIdx.x < batch
  const long long rows = images * shape.height;
  const RowCopy<T, kGroups32> copy;
  const PixelWalk walk(2 * shape.width);
  RowCursor next{blockIdx.x};  // the next row to fetch, and its slot
  int next_slot = 0;
  const auto fetch_next = [&] {
    copy.start(a, next, inputs + next_slot * input_slot_bytes);
    next.advance(shape.height);
    next_slot = next_slot == kInputSlots - 1 ? 0 : next_slot + 1;
  };
  for (int u = 0; u < kRgbAhead; ++u) {
    if (u < rows) fetch_next();
    cudalabs::async_copy_commit();
  }
  RowCursor at{blockIdx.x};  // the row being multiplied, its input slot and its product slot
  int input_slot = 0, product_slot = 0;
  for (long long u = 0; u < rows; ++u) {
    // Row u + kRgbAhead goes into the slot row u - 1 was multiplied from (done before the last
    // barrier); row u must have landed, in every thread's copies.
    if (u + kRgbAhead < rows) fetch_next();
    cudalabs::async_copy_commit();
    cudalabs::async_copy_wait<kRgbAhead>();
    __syncthreads();
    const int i = at.row;
    const unsigned char* input = inputs + input_slot * input_slot_bytes;
    float* slot = products + product_slot * row_floats;
    for (int tile = slice; tile < row_tiles; tile += plan.slices) {
      // ldmatrix's rows: lane l gives pixel l % 8 (+ 8 for matrices 1 and 3) of the tile, chunk
      // 2 step (+ 1 for matrices 2 and 3); past the image's width, pixels whose products nobody
      // reads.
      const int pixel = tile * kTilePixels + lane % 8 + 8 * (lane / 8 % 2);
      const std::uint32_t row = ptx::shared_address(input + pixel * Layout::kBytes);
      const int swizzle = Layout::swizzle(pixel), half = lane / 16;
      float acc[kTiles][4] = {};
#pragma unroll
      for (int step = 0; step < kSteps; ++step) {
        std::uint32_t frag[4];
        ptx::ldmatrix_x4<false>(frag, row + 16 * ((2 * step + half) ^ swizzle));
#pragma unroll
        for (int t = 0; t < kTiles; ++t) Mma::mma(acc[t], frag, b[t][step][0], b[t][step][1]);
      }
      // acc[t]: pixels g (0, 1) and g + 8 (2, 3) of the tile, columns first_column + 8 t + 2 q,
      // + 1.
      float* p_row = slot + (tile * kTilePixels + g) * plan.product_stride + first_column + 2 * q;
#pragma unroll
      for (int t = 0; t < kTiles; ++t) {
        *reinterpret_cast<float2*>(p_row + 8 * t) = make_float2(acc[t][0], acc[t][1]);
        *reinterpret_cast<float2*>(p_row + 8 * plan.product_stride + 8 * t) =
            make_float2(acc[t][2], acc[t][3]);
      }
    }
    __syncthreads();  // row i's products are in; the slot of row i - 3 is free after the next one
    emit_rows_of(shape.out_channels, shape, walk, plan.product_stride, products, row_floats,
                 at.image, max(2 * i - 1, 0), i == shape.height - 1 ? 2 * shape.height - 1 : 2 * i,
                 a.bias, a.output);
    at.advance(shape.height);
    input_slot = input_slot == kInputSlots - 1 ? 0 : input_slot + 1;
    product_slot = at.row == 0 || product_slot == kProductSlots - 1 ? 0 : product_slot + 1;
  }
}

// Floats between two pixels' products: 8 per column tile, then 8 more while the stride is 0 or
// 16 banks past a multiple of 32, so that a quarter-warp's float2 stores (4 pixels) do not clash.
int padded_product_stride(int tiles) {
  int stride = 8 * tiles;
  while (stride % 32 != 8 && stride % 32 != 24) stride += 8;
  return stride;
}

template <class T, int kGroups32>
void launch_rgb(const TconvShape& shape, const T* input, const float* packed, const float* bias,
                float* output, cudaStream_t stream, const char* who) {
  RgbPlan plan;
  const TileGroups split =
      split_tiles((kTaps * shape.out_channels + 7) / 8, max_group_tiles<T, kGroups32>());
  plan.groups = split.groups;
  plan.slices = split.warps / split.groups;
  plan.row_pixels = (shape.width + kTilePixels - 1) / kTilePixels * kTilePixels;
  plan.product_stride = padded_product_stride(plan.groups * max_group_tiles<T, kGroups32>());
  plan.shared_bytes =
      static_cast<std::size_t>(kInputSlots) * plan.row_pixels * PixelLayout<T, kGroups32>::kBytes +
      static_cast<std::size_t>(kProductSlots) * plan.row_pixels * plan.product_stride *
          sizeof(float);
  int device = 0, most = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (plan.shared_bytes > static_cast<std::size_t>(most))
    throw std::invalid_argument(std::string(who) + ": width = " + std::to_string(shape.width) +
                                " needs " + std::to_string(plan.shared_bytes) +
                                " bytes of shared memory a block (this GPU gives " +
                                std::to_string(most) + ")");
  const auto kernel = rgb_scatter_kernel<T, kGroups32>;
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(kernel), plan.shared_bytes);
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, plan.threads(),
                                                           plan.shared_bytes));
  const long long blocks = std::min<long long>(
      shape.batch, static_cast<long long>(std::max(per_sm, 1)) * cudalabs::multiprocessor_count());
  kernel<<<static_cast<unsigned>(blocks), plan.threads(), plan.shared_bytes, stream>>>(
      RgbArgs<T>{shape, plan, input, packed, bias, output});
  CUDA_CHECK_LAUNCH(who);
}

template <class T>
void tconv_rgb(const TconvShape& shape, const T* input, const float* packed, const float* bias,
               float* output, cudaStream_t stream, const char* who) {
  cudalabs::dcgan::validate(shape, who);
  if (shape.in_channels % 32 != 0 || shape.in_channels > 96)
    throw std::invalid_argument(std::string(who) +
                                ": in_channels = " + std::to_string(shape.in_channels) +
                                " is not 32, 64 or 96 (the filter's fragments live in registers)");
  if (shape.out_channels > kMaxOutChannels)
    throw std::invalid_argument(std::string(who) + ": out_channels = " +
                                std::to_string(shape.out_channels) + " is outside 1 .. 8");
  if (!cudalabs::aligned_to(input, 16))
    throw std::invalid_argument(std::string(who) + ": the input is not 16-byte aligned");
  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 8)
    throw std::runtime_error(std::string(who) + ": needs compute capability 8.0 (mma.sync " +
                             (std::is_same_v<T, float> ? "TF32" : "BF16") + ")");
  switch (shape.in_channels / 32) {
    case 1:
      return launch_rgb<T, 1>(shape, input, packed, bias, output, stream, who);
    case 2:
      return launch_rgb<T, 2>(shape, input, packed, bias, output, stream, who);
    default:
      return launch_rgb<T, 3>(shape, input, packed, bias, output, stream, who);
  }
}

}  // namespace

void tconv_rgb_bf16_input(const TconvShape& shape, const __nv_bfloat16* input,
                          const float* packed_filter, const float* bias, float* output,
                          cudaStream_t stream) {
  tconv_rgb(shape, input, packed_filter, bias, output, stream, "lab11 tconv_rgb_bf16_input");
}

void tconv_rgb_tf32_input(const TconvShape& shape, const float* input, const float* packed_filter,
                          const float* bias, float* output, cudaStream_t stream) {
  tconv_rgb(shape, input, packed_filter, bias, output, stream, "lab11 tconv_rgb_tf32_input");
}

}  // namespace lab11
