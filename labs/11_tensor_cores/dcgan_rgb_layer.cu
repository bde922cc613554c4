// Lab 11's DCGAN, the RGB layer on tensor cores (given code, the same in both builds). Its K = 3
// output channels are too few for a GEMM's columns one phase at a time (8-wide mma columns, 5/8
// idle). So the four phases are taken together: a superpixel (I, J) is the 2 x 2 output pixels
// (2 I + dy, 2 J + dx), which gather from the 3 x 3 input pixels (I + di, J + dj) around (I, J),
// each through filter tap r = dy + 1 - 2 di, s = dx + 1 - 2 dj where that lies in 0..4. One GEMM
// then has rows = superpixels, columns n = dy R + dx K + k (all 4K outputs, each phase row's 2K
// starting an 8-wide column tile of its own where that multiplies fewer tiles: ColumnLayout), and
// a reduction over the 9 offsets x C channels, whose filter blocks that reach no output are never
// multiplied (15 of the 18 offset-and-column-tile blocks at K = 3 are).
// - A block owns a unit, one or two strips of 16 superpixels of an image's row, and walks down the
//   image: each input row i lands, through ldmatrix at the 3 column shifts dj, on the sums of
//   superpixel rows i + 1, i and i - 1 (di = -1, 0, 1), held in registers; row i - 1 is then
//   complete and stored, through tanh, straight from the mma's accumulators: no products in
//   shared memory, no second pass. The row loop is unrolled by three, so that the three rows'
//   accumulators change roles without moves.
// - The filter's fragments live in the warps' registers for the kernel's life (at most
//   kFragmentRegisters a thread); a block is one warp, or, where C and K need more registers, one
//   warp per slice of the channels, the slices adding their sums through shared memory, slice 0
//   first (the same bits on every run).
// - A block streams its units' input rows (any width: a unit's columns and a zero pixel each
//   side) through cp.async kRowsAhead rows ahead; only its own warps wait for them.
// - BF16 inputs run m16n8k16, TF32 inputs m16n8k8, their A fragments one ldmatrix.x4 a k-step;
//   the pixels' chunks are swizzled in shared memory (PixelLayout) so that ldmatrix's 8 rows hit
//   distinct banks.
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
#include <utility>

namespace lab11 {
namespace {

using cudalabs::dcgan::TconvShape;
namespace subpixel = lab09::subpixel;

constexpr int kTilePixels = 16;  // an mma's rows: a strip of superpixels
constexpr int kRowsAhead = 4;    // input rows in flight while one is multiplied
constexpr int kInputSlots = kRowsAhead + 1;
constexpr int kFragmentRegisters = 136;  // a thread's registers of the filter, at most
constexpr int kMaxOutChannels = 8;

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

// tanh(v) = 1 - 2 / (1 + 2^(v 2 log2(e))) to within a few FP32 ulps of 1 (absolute), from
// `scaled` = v 2 log2(e): 4 instructions (the hardware's approximate 2^x and 1 / x, denormals
// flushed) where tanhf takes 20. Past +-44 the power is 0 or infinity, and the result -1 or 1.
constexpr float kTanhScale = 2.8853900817779268f;  // 2 log2(e)
__device__ __forceinline__ float tanh_of_scaled(float scaled) {
  float power, reciprocal;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(power) : "f"(scaled));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(reciprocal) : "f"(1.0f + power));
  return fmaf(-2.0f, reciprocal, 1.0f);
}

/// The superpixel GEMM's output columns at K output channels: n = dy R + dx K + k for phase row
/// dy, phase column dx and channel k (an output pixel row's 2K values lie together in memory).
/// R = 2K packs the rows' columns together; R = 2K rounded up to 8 starts each row on its own
/// 8-wide mma tile, so that dy = 0's tiles, which only input rows di = -1 and 0 reach, are not
/// multiplied by row di = 1 (15 offset-and-tile blocks instead of 17 at K = 3). kColumnsByRow
/// takes whichever layout multiplies fewer blocks.
struct OutputColumn {
  int dy, dx, k;
  bool valid;  // a real output, not a column of padding
};
template <int kK, bool kByRow>
struct ColumnLayout {
  static constexpr int kRow = kByRow ? (2 * kK + 7) / 8 * 8 : 2 * kK;
  static constexpr int kColumns = kRow + 2 * kK;  // the last row needs no padding
  static constexpr int kTiles = (kColumns + 7) / 8;
  __host__ __device__ static constexpr OutputColumn column(int n) {
    const int dy = n / kRow, within = n % kRow;
    return {dy, within / kK, within % kK, n < kColumns && within < 2 * kK};
  }
  /// Where column n's value lies in an output pixel row pair (2 Wout K values a row).
  __host__ __device__ static constexpr int offset(int n, int row_values) {
    return n / kRow * row_values + n % kRow;
  }
  /// The filter tap through which input offset (di, dj) reaches output column n, or -1.
  __host__ __device__ static constexpr int reaching_tap(int di, int dj, int n) {
    const OutputColumn c = column(n);
    const int r = c.dy + 1 - 2 * di, s = c.dx + 1 - 2 * dj;
    return c.valid && r >= 0 && r < 5 && s >= 0 && s < 5 ? 5 * r + s : -1;
  }
  /// Offset (di, dj) and tile t multiply: bit (3 (di + 1) + dj + 1) kTiles + t.
  static constexpr unsigned long long reach_mask() {
    unsigned long long mask = 0;
    for (int offset = 0; offset < 9; ++offset)
      for (int t = 0; t < kTiles; ++t)
        for (int n = 8 * t; n < 8 * t + 8; ++n)
          if (reaching_tap(offset / 3 - 1, offset % 3 - 1, n) >= 0)
            mask |= 1ull << (offset * kTiles + t);
    return mask;
  }
  static constexpr int blocks() {
    int count = 0;
    for (unsigned long long bits = reach_mask(); bits != 0; bits &= bits - 1) ++count;
    return count;
  }
};
template <int kK>
constexpr bool kColumnsByRow = ColumnLayout<kK, true>::blocks() < ColumnLayout<kK, false>::blocks();

/// The kernel's shape at C = 32 kGroups32 channels of T and K = kK outputs: which offset and
/// column tile blocks of the filter reach an output (bit (3 (di + 1) + dj + 1) kTiles + t), the
/// slices the channels' k-steps split into so that a warp's blocks fit kFragmentRegisters (a
/// block's warps), and a unit's strips (two where the filter's and two strips' accumulators leave
/// room in the registers: 12 a column tile a strip).
template <class T, int kGroups32, int kK>
struct RgbPlan {
  using Columns = ColumnLayout<kK, kColumnsByRow<kK>>;
  static constexpr int kTiles = Columns::kTiles;
  static constexpr int kSteps = kGroups32 * RgbMma<T>::kStepsPer32;
  static constexpr unsigned long long kReach = Columns::reach_mask();
  static constexpr int kBlocks = Columns::blocks();
  static constexpr int slices() {
    for (int s = 1; s < kSteps; ++s)
      if (kSteps % s == 0 && kBlocks * (kSteps / s) * 2 <= kFragmentRegisters) return s;
    return kSteps;
  }
  static constexpr int kSlices = slices();
  static constexpr int kSliceSteps = kSteps / kSlices;
  static constexpr int kStrips = kBlocks * kSliceSteps * 2 + 24 * kTiles <= 150 ? 2 : 1;
  static constexpr int kPositions = kStrips * kTilePixels + 2;  // a unit's input pixels, halo too
  static constexpr int kThreads = 32 * kSlices;
  __host__ __device__ static constexpr bool reaches(int di, int dj, int t) {
    return (kReach >> ((3 * (di + 1) + dj + 1) * kTiles + t)) & 1;
  }
};

template <class T>
struct RgbArgs {
  TconvShape shape;
  const T* input;
  const float* packed;  // subpixel.h's packed filter, FP32
  const float* bias;
  float* output;
  long long units;  // images x column groups
  int groups;       // column groups (units) a row
  bool pairs;       // the output is 8-byte aligned: two adjacent outputs a store
};

// Filter value of tap (r, s), input channel c, output channel k in the packed filter.
__device__ __forceinline__ float filter_at(const TconvShape& shape, const float* packed, int tap,
                                           int c, int k) {
  const int r = tap / 5, s = tap % 5, k_out = shape.out_channels;
  // Filter row r serves output parity 0 as tap (r - 1) / 2 when odd, parity 1 as tap r / 2 when
  // even (subpixel.h's filter_index), and likewise for columns.
  const int py = r % 2 == 1 ? 0 : 1, px = s % 2 == 1 ? 0 : 1;
  const int ty = py == 0 ? (r - 1) / 2 : r / 2, tx = px == 0 ? (s - 1) / 2 : s / 2;
  const int z = (1 - py) * 2 + (1 - px);
  const std::size_t row =
      static_cast<std::size_t>(ty * subpixel::taps(px) + tx) * shape.in_channels + c;
  return packed[subpixel::phase_start(z, shape.in_channels, k_out) + row * k_out + k];
}

// A block's walk over its units' input rows, unit after unit (blockIdx.x + gridDim.x t), kept as
// counters: a division per unit, none per row.
struct RowCursor {
  long long unit;
  int row = 0;
  long long image = 0;
  int first_column = 0;  // the unit's first superpixel column
  __device__ void locate(int groups, int unit_columns) {
    image = unit / groups;
    first_column = static_cast<int>(unit - image * groups) * unit_columns;
  }
  __device__ void advance(int height, int groups, int unit_columns) {
    if (++row == height) {
      row = 0;
      unit += gridDim.x;
      locate(groups, unit_columns);
    }
  }
};

// This thread's share of copying a unit's input row: 16-byte chunks idx = threadIdx.x, + kThreads,
// ... of its kPositions pixels, position p holding input column first_column - 1 + p (zeros where
// that is outside the image).
template <class T, int kGroups32, int kPositions, int kThreads>
struct RowCopy {
  using Layout = PixelLayout<T, kGroups32>;
  static constexpr int kChunks = kPositions * Layout::kChunks;
  static constexpr int kPerThread = (kChunks + kThreads - 1) / kThreads;
  __device__ void start(const RgbArgs<T>& a, const RowCursor& at, unsigned char* slot) const {
    const int width = a.shape.width;
    // Chunks of pixels 1 - first_column .. width - first_column (positions) are in the image.
    const int first = ::max(0, 1 - at.first_column) * Layout::kChunks;
    const int end = ::min(kPositions, width + 1 - at.first_column) * Layout::kChunks;
    // Position 0's byte offset (one pixel before the row for the first unit of image 0's row 0,
    // where no chunk is read: a chunk outside the image reads the nearest one inside, 0 bytes).
    const long long position0 =
        ((at.image * a.shape.height + at.row) * width + at.first_column - 1) * Layout::kBytes;
    const unsigned char* base = reinterpret_cast<const unsigned char*>(a.input);
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
      const int idx = threadIdx.x + u * kThreads;
      if (kChunks % kThreads != 0 && idx >= kChunks) break;
      const bool inside = idx >= first && idx < end;
      const unsigned char* source = base + position0 + 16 * ::min(::max(idx, first), end - 1);
      const int p = idx / Layout::kChunks;
      cudalabs::async_copy_16_zero_fill(slot + Layout::offset(p, idx - p * Layout::kChunks), source,
                                        inside ? 16 : 0);
    }
  }
};

// The superpixel GEMM (see the top of this file); kK output channels, C = 32 kGroups32.
template <class T, int kGroups32, int kK>
__global__ void __launch_bounds__(RgbPlan<T, kGroups32, kK>::kThreads)
    rgb_superpixel_kernel(RgbArgs<T> a) {
  using Mma = RgbMma<T>;
  using F = RgbPlan<T, kGroups32, kK>;
  using Layout = PixelLayout<T, kGroups32>;
  constexpr int kTiles = F::kTiles, kSliceSteps = F::kSliceSteps, kSlices = F::kSlices;
  constexpr int kStrips = F::kStrips;
  constexpr int kSlotBytes = F::kPositions * Layout::kBytes;
  constexpr int kUnitColumns = kStrips * kTilePixels;
  extern __shared__ __align__(16) unsigned char shared[];
  const TconvShape& shape = a.shape;
  const int slice = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;

  // This warp's B fragments: offset (di, dj), column 8 t + g, its slice's k-steps; built once.
  std::uint32_t b[3][3][kTiles][kSliceSteps][2];
#pragma unroll
  for (int di = -1; di <= 1; ++di)
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj)
#pragma unroll
      for (int t = 0; t < kTiles; ++t) {
        if (!F::reaches(di, dj, t)) continue;
        const int n = 8 * t + g;
        const int tap = F::Columns::reaching_tap(di, dj, n);
        const int k = F::Columns::column(n).k;
#pragma unroll
        for (int step = 0; step < kSliceSteps; ++step)
#pragma unroll
          for (int which = 0; which < 2; ++which) {
            const int c = Mma::b_channel(slice * kSliceSteps + step, q, which);
            float pair[2] = {0.0f, 0.0f};
            if (tap >= 0) {
              pair[0] = filter_at(shape, a.packed, tap, c, k);
              if (Mma::kStepsPer32 == 2) pair[1] = filter_at(shape, a.packed, tap, c + 1, k);
            }
            b[di + 1][dj + 1][t][step][which] = Mma::b_register(pair, 1);
          }
      }

  // ldmatrix's rows: lane l gives superpixel l % 8 (+ 8 for matrices 1 and 3) of strip 0, shifted
  // by dj, chunk 2 k-step (+ 1 for matrices 2 and 3) of its slice. Strip 1 is 16 pixels on, where
  // the swizzle repeats.
  std::uint32_t a_offset[3][kSliceSteps];
#pragma unroll
  for (int dj = -1; dj <= 1; ++dj) {
    const int p = 1 + dj + lane % 8 + 8 * (lane / 8 % 2);
#pragma unroll
    for (int step = 0; step < kSliceSteps; ++step) {
      const int chunk = 2 * (slice * kSliceSteps + step) + lane / 16;
      a_offset[dj + 1][step] = Layout::offset(p, chunk);
    }
  }
  static_assert(Layout::swizzle(kTilePixels) == Layout::swizzle(0));

  // The accumulators' output columns: n = 8 t + 2 q and n + 1, where n < 4 K; their offset in an
  // output pixel row pair, and their biases, scaled for tanh_of_scaled.
  const int columns = 2 * shape.width;
  int column_offset[kTiles];
  float bias[kTiles][2];
#pragma unroll
  for (int t = 0; t < kTiles; ++t) {
    const int n = 8 * t + 2 * q;  // n + 1 is in the same output row: 2K and the row R are even
    const OutputColumn column = F::Columns::column(n);
    column_offset[t] = F::Columns::offset(n, columns * kK);
    bias[t][0] = column.valid ? kTanhScale * a.bias[column.k] : 0.0f;
    bias[t][1] = column.valid ? kTanhScale * a.bias[F::Columns::column(n + 1).k] : 0.0f;
  }

  unsigned char* inputs = shared;
  float4* exchange = reinterpret_cast<float4*>(shared + kInputSlots * kSlotBytes);
  const RowCopy<T, kGroups32, F::kPositions, F::kThreads> copy;
  RowCursor next{blockIdx.x};  // the next row to fetch, and its slot
  next.locate(a.groups, kUnitColumns);
  int next_slot = 0;
  const auto fetch_next = [&] {
    if (next.unit < a.units) copy.start(a, next, inputs + next_slot * kSlotBytes);
    cudalabs::async_copy_commit();
    next.advance(shape.height, a.groups, kUnitColumns);
    next_slot = next_slot == kInputSlots - 1 ? 0 : next_slot + 1;
  };
  for (int u = 0; u < kRowsAhead; ++u) fetch_next();

  // acc[slot][strip]: three superpixel rows' sums, slot i % 3 for row i.
  float acc[3][kStrips][kTiles][4];
  const auto clear = [&](int slot) {
#pragma unroll
    for (int strip = 0; strip < kStrips; ++strip)
#pragma unroll
      for (int t = 0; t < kTiles; ++t)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[slot][strip][t][e] = 0.0f;
  };

  // Superpixel row `row` of the unit, complete in acc[slot]: the block's slices add their sums
  // (slice 0 first), and slice 0 stores tanh(sum + bias) where the image has the pixels.
  int exchanges = 0;
  const auto finish = [&](auto slot_constant, const RowCursor& unit, int row) {
    constexpr int kSlot = decltype(slot_constant)::value;
    if constexpr (kSlices > 1) {
      float4* place = exchange + (exchanges % 2) * (kSlices - 1) * kStrips * kTiles * 32;
      ++exchanges;
      if (slice > 0) {
#pragma unroll
        for (int strip = 0; strip < kStrips; ++strip)
#pragma unroll
          for (int t = 0; t < kTiles; ++t) {
            const float* v = acc[kSlot][strip][t];
            place[(((slice - 1) * kStrips + strip) * kTiles + t) * 32 + lane] =
                make_float4(v[0], v[1], v[2], v[3]);
          }
      }
      __syncthreads();
      if (slice > 0) return;
      for (int from = 0; from < kSlices - 1; ++from) {
#pragma unroll
        for (int strip = 0; strip < kStrips; ++strip)
#pragma unroll
          for (int t = 0; t < kTiles; ++t) {
            const float4 v = place[((from * kStrips + strip) * kTiles + t) * 32 + lane];
            float* sum = acc[kSlot][strip][t];
            sum[0] += v.x;
            sum[1] += v.y;
            sum[2] += v.z;
            sum[3] += v.w;
          }
      }
    }
    float* out = a.output +
                 ((unit.image * 2 * shape.height + 2 * row) * columns + 2 * unit.first_column) * kK;
#pragma unroll
    for (int strip = 0; strip < kStrips; ++strip)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int superpixel = strip * kTilePixels + g + 8 * half;
        if (unit.first_column + superpixel >= shape.width) continue;
        float* pixel = out + superpixel * 2 * kK;
#pragma unroll
        for (int t = 0; t < kTiles; ++t) {
          if (!F::Columns::column(8 * t + 2 * q).valid) continue;
          const float v0 =
              tanh_of_scaled(fmaf(acc[kSlot][strip][t][2 * half], kTanhScale, bias[t][0]));
          const float v1 =
              tanh_of_scaled(fmaf(acc[kSlot][strip][t][2 * half + 1], kTanhScale, bias[t][1]));
          float* o = pixel + column_offset[t];
          if (a.pairs) {
            *reinterpret_cast<float2*>(o) = make_float2(v0, v1);
          } else {
            o[0] = v0;
            o[1] = v1;
          }
        }
      }
  };

  // Input row i of the unit, its phase i % 3 a constant: it adds to superpixel rows i + 1 (slot
  // (phase + 1) % 3), i and i - 1, and row i - 1 is then complete.
  int slot = 0;
  const auto multiply_row = [&](auto phase_constant, const RowCursor& unit, int i) {
    constexpr int kPhase = decltype(phase_constant)::value;
    // Row i has landed in every thread's copies, and every warp is done with the slot the next
    // fetch overwrites (row i - 1's).
    cudalabs::async_copy_wait<kRowsAhead - 1>();
    __syncthreads();
    fetch_next();
    const std::uint32_t input = ptx::shared_address(inputs + slot * kSlotBytes);
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj) {
#pragma unroll
      for (int step = 0; step < kSliceSteps; ++step) {
#pragma unroll
        for (int strip = 0; strip < kStrips; ++strip) {
          std::uint32_t fragment[4];
          ptx::ldmatrix_x4<false>(
              fragment, input + a_offset[dj + 1][step] + strip * kTilePixels * Layout::kBytes);
#pragma unroll
          for (int di = -1; di <= 1; ++di)
#pragma unroll
            for (int t = 0; t < kTiles; ++t)
              if (F::reaches(di, dj, t))
                Mma::mma(acc[(kPhase + 3 - di) % 3][strip][t], fragment,
                         b[di + 1][dj + 1][t][step][0], b[di + 1][dj + 1][t][step][1]);
        }
      }
    }
    constexpr int kPrevious = (kPhase + 2) % 3;
    if (i > 0) finish(std::integral_constant<int, kPrevious>{}, unit, i - 1);
    clear(kPrevious);  // now row i + 2's
    if (i == shape.height - 1) finish(std::integral_constant<int, kPhase>{}, unit, i);
    slot = slot == kInputSlots - 1 ? 0 : slot + 1;
  };

  for (long long index = blockIdx.x; index < a.units; index += gridDim.x) {
    RowCursor unit{index};
    unit.locate(a.groups, kUnitColumns);
    clear(0);
    clear(1);
    clear(2);
    for (int i = 0; i < shape.height; i += 3) {
      multiply_row(std::integral_constant<int, 0>{}, unit, i);
      if (i + 1 < shape.height) multiply_row(std::integral_constant<int, 1>{}, unit, i + 1);
      if (i + 2 < shape.height) multiply_row(std::integral_constant<int, 2>{}, unit, i + 2);
    }
  }
  cudalabs::async_copy_wait<0>();
}

template <class T, int kGroups32, int kK>
void launch_rgb(const TconvShape& shape, const T* input, const float* packed, const float* bias,
                float* output, cudaStream_t stream, const char* who) {
  using F = RgbPlan<T, kGroups32, kK>;
  const std::size_t exchange_bytes =
      F::kSlices > 1 ? std::size_t{16} * 2 * (F::kSlices - 1) * F::kStrips * F::kTiles * 32 : 0;
  const std::size_t shared_bytes =
      std::size_t{kInputSlots} * F::kPositions * PixelLayout<T, kGroups32>::kBytes + exchange_bytes;
  const auto kernel = rgb_superpixel_kernel<T, kGroups32, kK>;
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(kernel), shared_bytes);
  int per_sm = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, F::kThreads, shared_bytes));
  constexpr int kUnitColumns = F::kStrips * kTilePixels;
  const int groups = (shape.width + kUnitColumns - 1) / kUnitColumns;
  const long long units = static_cast<long long>(shape.batch) * groups;
  const long long blocks = std::min<long long>(
      units, static_cast<long long>(std::max(per_sm, 1)) * cudalabs::multiprocessor_count());
  kernel<<<static_cast<unsigned>(blocks), F::kThreads, shared_bytes, stream>>>(RgbArgs<T>{
      shape, input, packed, bias, output, units, groups, cudalabs::aligned_to(output, 8)});
  CUDA_CHECK_LAUNCH(who);
}

// launch_rgb for the layer's K (1 .. kMaxOutChannels).
template <class T, int kGroups32, int kK = 1>
void launch_rgb_of(const TconvShape& shape, const T* input, const float* packed, const float* bias,
                   float* output, cudaStream_t stream, const char* who) {
  if constexpr (kK < kMaxOutChannels) {
    if (shape.out_channels != kK)
      return launch_rgb_of<T, kGroups32, kK + 1>(shape, input, packed, bias, output, stream, who);
  }
  launch_rgb<T, kGroups32, kK>(shape, input, packed, bias, output, stream, who);
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
      return launch_rgb_of<T, 1>(shape, input, packed, bias, output, stream, who);
    case 2:
      return launch_rgb_of<T, 2>(shape, input, packed, bias, output, stream, who);
    default:
      return launch_rgb_of<T, 3>(shape, input, packed, bias, output, stream, who);
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
