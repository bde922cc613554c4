// Lab 11's DCGAN, the RGB layer on tensor cores (given code, the same in both builds). Its K = 3
// output channels are too few for a GEMM's columns one phase at a time (8-wide mma columns, 5/8
// idle). So the four phases are taken together: a superpixel (I, J) is the 2 x 2 output pixels
// (2 I + dy, 2 J + dx), which gather from the 3 x 3 input pixels (I + di, J + dj) around (I, J),
// each through filter tap r = dy + 1 - 2 di, s = dx + 1 - 2 dj where that lies in 0..4. One GEMM
// then has rows = superpixels, columns n = dy R + dx K + k (all 4K outputs, each phase row's 2K
// starting an 8-wide column tile of its own where that multiplies fewer tiles: ColumnLayout), and
// a reduction over the 9 offsets x C channels, whose filter blocks that reach no output are never
// multiplied (15 of the 18 offset-and-column-tile blocks at K = 3 are).
// - A warp owns a unit, kStrips strips of 16 superpixels of a band of an image's rows, and walks
//   down the band: each input row i lands, through ldmatrix at the 3 column shifts dj, on the sums
//   of superpixel rows i + 1, i and i - 1 (di = -1, 0, 1), held in registers; row i - 1 is then
//   complete and stored, through tanh, straight from the mma's accumulators: no products in
//   shared memory, no second pass. The row loop is unrolled by three, so that the three rows'
//   accumulators change roles without moves.
// - The filter's fragments are built once a block into shared memory, in the order the lanes read
//   them (one 16-byte load gives a lane its B registers of two k-steps), and each serves every
//   strip of the warp: registers hold sums and fragments in flight, so a warp has kStrips x 6
//   independent accumulators to hide the mma's latency, and an SM holds 8 to 12 warps.
// - A warp streams its units' input rows (any width: a unit's columns and a zero pixel each side)
//   through cp.async, kRowsAhead rows ahead in slots of its own; no warp waits for another.
// - Bands: where a unit an image would leave warps idle (a few images), an image's rows split into
//   bands, each re-reading the input row on either side of it (rgb_bands.h, the wave model).
// - BF16 inputs run m16n8k16, TF32 inputs m16n8k8, their A fragments one ldmatrix.x4 a k-step;
//   a pixel takes 16 bytes more than its channels in shared memory (PixelLayout), so that
//   ldmatrix's 8 rows hit distinct banks and every address is a register plus a constant.
#include "common/async_copy.cuh"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "dcgan_layers.h"
#include "labs/09_dcgan/subpixel.h"
#include "rgb_bands.h"
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
constexpr int kStrips = 2;       // a warp's strips: 32 superpixels, a DCGAN image's width
constexpr int kWarps = 4;        // a block's warps, sharing the filter's fragments
// An SM's shared memory (Hopper), of which each block's 1 KiB is reserved.
constexpr int kSmSharedBytes = 228 * 1024;
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

/// A pixel's place in an input row in shared memory: its channels' kBytes and 16 bytes of padding.
/// ldmatrix reads one 16-byte chunk of 8 consecutive pixels at once; kStride bytes apart (4 banks
/// past a multiple of 128 bytes) they hit distinct banks, and chunk c of pixel p lies at a sum
/// whose terms are known apart (no swizzle to compute).
template <class T, int kGroups32>
struct PixelLayout {
  static constexpr int kBytes = kGroups32 * 32 * static_cast<int>(sizeof(T));
  static constexpr int kChunks = kBytes / 16;
  static constexpr int kStride = kBytes + 16;
  static_assert(kStride % 128 == 16 || kStride % 128 == 80, "8 rows must hit distinct banks");
  __host__ __device__ static constexpr int offset(int pixel, int chunk) {
    return pixel * kStride + 16 * chunk;
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
/// column tile blocks of the filter reach an output (bit (3 (di + 1) + dj + 1) kTiles + t), where
/// their fragments lie in shared memory (kStepPairs 16-byte words a lane a block), and a warp's
/// slots of input rows: two rows in flight where a row is small, else one (with 8 or more warps
/// an SM, that keeps enough bytes in flight and the slots within shared memory).
template <class T, int kGroups32, int kK>
struct RgbPlan {
  using Columns = ColumnLayout<kK, kColumnsByRow<kK>>;
  using Layout = PixelLayout<T, kGroups32>;
  static constexpr int kTiles = Columns::kTiles;
  static constexpr int kSteps = kGroups32 * RgbMma<T>::kStepsPer32;
  static_assert(kSteps % 2 == 0, "a lane's 16-byte word holds two k-steps");
  static constexpr int kStepPairs = kSteps / 2;
  static constexpr unsigned long long kReach = Columns::reach_mask();
  static constexpr int kBlocks = Columns::blocks();
  static constexpr int kPositions = kStrips * kTilePixels + 2;  // a unit's input pixels, halo too
  static constexpr int kSlotBytes = kPositions * Layout::kStride;
  static constexpr int kRowsAhead = kSlotBytes <= 5120 ? 2 : 1;
  static constexpr int kInputSlots = kRowsAhead + 1;
  static constexpr int kFilterBytes = kBlocks * kStepPairs * 32 * 16;
  static constexpr int kSharedBytes = kFilterBytes + kWarps * kInputSlots * kSlotBytes;
  static_assert(kSharedBytes <= 227 * 1024, "a block must fit an SM's shared memory");
  /// Blocks an SM is given registers for (__launch_bounds__): as many as shared memory holds, but
  /// no more than leave room for a thread's sums, 24 a column tile (3 rows x 2 strips x 4), and
  /// its fragments in flight: 3 blocks (168 registers) up to two tiles, else 2 (255; at 4 blocks,
  /// 128 registers, even two tiles' spill).
  static constexpr int kBlocksPerSm =
      std::min(kTiles <= 2 ? 3 : 2, kSmSharedBytes / (kSharedBytes + 1024));
  __host__ __device__ static constexpr int bit(int di, int dj, int t) {
    return (3 * (di + 1) + dj + 1) * kTiles + t;
  }
  __host__ __device__ static constexpr bool reaches(int di, int dj, int t) {
    return (kReach >> bit(di, dj, t)) & 1;
  }
  /// Block (di, dj, t)'s place among the blocks that reach: a sum over every bit, unrolled, so
  /// that the compiler folds it to a constant where the kernel's unrolled loops ask (a loop up to
  /// the block's bit stays a loop in the kernel's inner loop).
  __host__ __device__ static constexpr int block_index(int di, int dj, int t) {
    int index = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int b = 0; b < 9 * kTiles; ++b) index += b < bit(di, dj, t) ? (kReach >> b) & 1 : 0;
    return index;
  }
  /// The bit of the block in place `index`.
  __host__ __device__ static constexpr int block_bit(int index) {
    int b = 0;
    for (;; ++b)
      if ((kReach >> b) & 1 && index-- == 0) return b;
  }
};

template <class T>
struct RgbArgs {
  TconvShape shape;
  const T* input;
  const float* packed;  // subpixel.h's packed filter, FP32
  const float* bias;
  float* output;
  long long units;  // images x bands x column groups
  int groups;       // column groups (units) a band
  int bands;        // bands an image
  int band_rows;    // superpixel rows a band (the last band's may be fewer)
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

// A unit: an image's column group in a band of its superpixel rows. It stores rows
// [first_stored, end_stored) and reads input rows first_row .. last_row (one more each side where
// the image has it).
struct UnitRows {
  long long image = 0;
  int first_column = 0;  // the unit's first superpixel column
  int first_stored = 0, end_stored = 0;
  int first_row = 0, last_row = 0;
  template <class T>
  __device__ static UnitRows of(long long unit, const RgbArgs<T>& a) {
    constexpr int kUnitColumns = kStrips * kTilePixels;
    const long long per_image = static_cast<long long>(a.bands) * a.groups;
    UnitRows u;
    u.image = unit / per_image;
    const int rest = static_cast<int>(unit - u.image * per_image);
    const int band = rest / a.groups;
    u.first_column = (rest - band * a.groups) * kUnitColumns;
    u.first_stored = band * a.band_rows;
    u.end_stored = ::min(a.shape.height, u.first_stored + a.band_rows);
    u.first_row = ::max(0, u.first_stored - 1);
    u.last_row = ::min(a.shape.height - 1, u.end_stored);
    return u;
  }
};

// A warp's walk over its units' input rows, unit after unit (the warp's first, then every
// `stride`-th): a division per unit, none per row.
template <class T>
struct RowCursor {
  long long unit;
  long long stride;
  UnitRows rows;
  int row;
  __device__ RowCursor(long long first, long long every, const RgbArgs<T>& a)
      : unit(first), stride(every), rows(UnitRows::of(first, a)), row(rows.first_row) {}
  __device__ void advance(const RgbArgs<T>& a) {
    if (++row > rows.last_row) {
      unit += stride;
      rows = UnitRows::of(unit, a);
      row = rows.first_row;
    }
  }
};

// A lane's share of copying a unit's input row: 16-byte chunks idx = lane, lane + 32, ... of its
// kPositions pixels, position p holding input column first_column - 1 + p (zeros where that is
// outside the image). Where a pixel's chunks divide 32, a lane's chunks are its own place plus
// constants.
template <class T, int kGroups32, int kPositions>
struct RowCopy {
  using Layout = PixelLayout<T, kGroups32>;
  static constexpr int kChunks = kPositions * Layout::kChunks;
  static constexpr int kPerLane = (kChunks + 31) / 32;
  __device__ static void start(const RgbArgs<T>& a, const UnitRows& unit, int row, int lane,
                               unsigned char* slot) {
    const int width = a.shape.width;
    // Chunks of pixels 1 - first_column .. width - first_column (positions) are in the image.
    const int first = ::max(0, 1 - unit.first_column) * Layout::kChunks;
    const int end = ::min(kPositions, width + 1 - unit.first_column) * Layout::kChunks;
    // Position 0 (one pixel before the row for the first unit of image 0's row 0, where no chunk
    // is read: a chunk outside the image reads the nearest one inside, 0 bytes).
    const unsigned char* position0 =
        reinterpret_cast<const unsigned char*>(a.input) +
        ((unit.image * a.shape.height + row) * width + unit.first_column - 1) * Layout::kBytes;
    constexpr bool kLaneColumns = 32 % Layout::kChunks == 0;
    const int lane_place =
        kLaneColumns ? Layout::offset(lane / Layout::kChunks, lane % Layout::kChunks) : 0;
#pragma unroll
    for (int u = 0; u < kPerLane; ++u) {
      const int idx = lane + 32 * u;
      if (kChunks % 32 != 0 && idx >= kChunks) break;
      const int clamped = ::min(::max(idx, first), end - 1);
      const int place = kLaneColumns ? lane_place + u * (32 / Layout::kChunks) * Layout::kStride
                                     : Layout::offset(idx / Layout::kChunks, idx % Layout::kChunks);
      // clamped >= 0: unsigned, its byte offset is one shift-and-add into the 64-bit address.
      cudalabs::async_copy_16_zero_fill(
          slot + place, position0 + 16u * static_cast<unsigned>(clamped), clamped == idx ? 16 : 0);
    }
  }
};

// The superpixel GEMM (see the top of this file); kK output channels, C = 32 kGroups32.
template <class T, int kGroups32, int kK>
__global__ void __launch_bounds__(kWarps * 32, (RgbPlan<T, kGroups32, kK>::kBlocksPerSm))
    rgb_superpixel_kernel(RgbArgs<T> a) {
  using Mma = RgbMma<T>;
  using F = RgbPlan<T, kGroups32, kK>;
  using Layout = typename F::Layout;
  constexpr int kTiles = F::kTiles, kStepPairs = F::kStepPairs;
  constexpr int kSlotBytes = F::kSlotBytes, kInputSlots = F::kInputSlots;
  extern __shared__ __align__(16) unsigned char shared[];
  const TconvShape& shape = a.shape;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;

  // The filter's fragments, built by the block once: lane l's B registers of block b (in place
  // order), k-steps 2 p and 2 p + 1, column 8 t + l / 4, at word (b kStepPairs + p) 32 + l.
  uint4* fragments = reinterpret_cast<uint4*>(shared);
  for (int e = threadIdx.x; e < F::kBlocks * kStepPairs * 32; e += blockDim.x) {
    const int l = e % 32, pair = e / 32 % kStepPairs, bit = F::block_bit(e / 32 / kStepPairs);
    const int offset = bit / kTiles, t = bit % kTiles;
    const int n = 8 * t + l / 4;
    const int tap = F::Columns::reaching_tap(offset / 3 - 1, offset % 3 - 1, n);
    const int k = F::Columns::column(n).k;
    std::uint32_t word[4];
    for (int s = 0; s < 2; ++s)
      for (int which = 0; which < 2; ++which) {
        const int c = Mma::b_channel(2 * pair + s, l % 4, which);
        float values[2] = {0.0f, 0.0f};
        if (tap >= 0) {
          values[0] = filter_at(shape, a.packed, tap, c, k);
          if (Mma::kStepsPer32 == 2) values[1] = filter_at(shape, a.packed, tap, c + 1, k);
        }
        word[2 * s + which] = Mma::b_register(values, 1);
      }
    fragments[e] = make_uint4(word[0], word[1], word[2], word[3]);
  }

  // ldmatrix's rows: lane l gives superpixel l % 8 (+ 8 for matrices 1 and 3) of strip 0, shifted
  // by dj, chunk 2 k-step (+ 1 for matrices 2 and 3); k-step s is 32 s bytes on, strip 1 16 pixels.
  std::uint32_t a_offset[3];
#pragma unroll
  for (int dj = -1; dj <= 1; ++dj)
    a_offset[dj + 1] = Layout::offset(1 + dj + lane % 8 + 8 * (lane / 8 % 2), lane / 16);

  // The accumulators' output columns: n = 8 t + 2 q and n + 1, where n < 4 K; their offset in an
  // output pixel row pair, and their biases, scaled for tanh_of_scaled.
  const int columns = 2 * shape.width;
  int column_offset[kTiles];
  bool column_valid[kTiles];
  float bias[kTiles][2];
#pragma unroll
  for (int t = 0; t < kTiles; ++t) {
    const int n = 8 * t + 2 * q;  // n + 1 is in the same output row: 2K and the row R are even
    const OutputColumn column = F::Columns::column(n);
    column_offset[t] = F::Columns::offset(n, columns * kK);
    column_valid[t] = column.valid;
    bias[t][0] = column.valid ? kTanhScale * a.bias[column.k] : 0.0f;
    bias[t][1] = column.valid ? kTanhScale * a.bias[F::Columns::column(n + 1).k] : 0.0f;
  }

  unsigned char* inputs = shared + F::kFilterBytes + warp * kInputSlots * kSlotBytes;
  const long long first_unit = static_cast<long long>(blockIdx.x) * kWarps + warp;
  const long long unit_stride = static_cast<long long>(gridDim.x) * kWarps;
  RowCursor<T> next(first_unit, unit_stride, a);  // the next row to fetch, and its slot
  int next_slot = 0;
  const auto fetch_next = [&] {
    if (next.unit < a.units)
      RowCopy<T, kGroups32, F::kPositions>::start(a, next.rows, next.row, lane,
                                                  inputs + next_slot * kSlotBytes);
    cudalabs::async_copy_commit();
    next.advance(a);
    next_slot = next_slot == kInputSlots - 1 ? 0 : next_slot + 1;
  };
  for (int u = 0; u < F::kRowsAhead; ++u) fetch_next();
  __syncthreads();  // the fragments are built

  // acc[slot][strip]: three superpixel rows' sums, slot (I - first_row) mod 3 for row I.
  float acc[3][kStrips][kTiles][4];
  const auto clear = [&](int slot) {
#pragma unroll
    for (int strip = 0; strip < kStrips; ++strip)
#pragma unroll
      for (int t = 0; t < kTiles; ++t)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[slot][strip][t][e] = 0.0f;
  };

  // Superpixel row `row` of the unit, complete in acc[slot]: tanh(sum + bias) where the image has
  // the pixels.
  const auto finish = [&](auto slot_constant, const UnitRows& unit, int row) {
    constexpr int kSlot = decltype(slot_constant)::value;
    float* out = a.output +
                 ((unit.image * 2 * shape.height + 2 * row) * columns + 2 * unit.first_column) * kK;
#pragma unroll
    for (int strip = 0; strip < kStrips; ++strip)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int superpixel = strip * kTilePixels + g + 8 * half;
        const bool in_image = unit.first_column + superpixel < shape.width;
        float* pixel = out + superpixel * 2 * kK;
#pragma unroll
        for (int t = 0; t < kTiles; ++t) {
          // Every lane computes; only those whose pixel and column exist store (no branches).
          const float v0 =
              tanh_of_scaled(fmaf(acc[kSlot][strip][t][2 * half], kTanhScale, bias[t][0]));
          const float v1 =
              tanh_of_scaled(fmaf(acc[kSlot][strip][t][2 * half + 1], kTanhScale, bias[t][1]));
          float* o = pixel + column_offset[t];
          if (in_image && column_valid[t]) {
            if (a.pairs) {
              *reinterpret_cast<float2*>(o) = make_float2(v0, v1);
            } else {
              o[0] = v0;
              o[1] = v1;
            }
          }
        }
      }
  };

  // Input row i of the unit, its phase (i - first_row) mod 3 a constant: it adds to superpixel
  // rows i + 1 (slot (phase + 1) mod 3), i and i - 1, and row i - 1 is then complete.
  int slot = 0;
  const auto multiply_row = [&](auto phase_constant, const UnitRows& unit, int i) {
    constexpr int kPhase = decltype(phase_constant)::value;
    // Row i has landed in every lane's copies, and every lane is done with the slot the next
    // fetch overwrites (row i - 1's).
    cudalabs::async_copy_wait<F::kRowsAhead - 1>();
    __syncwarp();
    fetch_next();
    const std::uint32_t input = ptx::shared_address(inputs + slot * kSlotBytes);
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj) {
#pragma unroll
      for (int pair = 0; pair < kStepPairs; ++pair) {
        std::uint32_t fragment[2][kStrips][4];
#pragma unroll
        for (int s = 0; s < 2; ++s)
#pragma unroll
          for (int strip = 0; strip < kStrips; ++strip)
            ptx::ldmatrix_x4<false>(
                fragment[s][strip],
                input + a_offset[dj + 1] + Layout::offset(strip * kTilePixels, 2 * (2 * pair + s)));
        uint4 b[3][kTiles];
#pragma unroll
        for (int di = -1; di <= 1; ++di)
#pragma unroll
          for (int t = 0; t < kTiles; ++t)
            if (F::reaches(di, dj, t))
              b[di + 1][t] = fragments[(F::block_index(di, dj, t) * kStepPairs + pair) * 32 + lane];
              // Each k-step sweeps every reached sum before the next: the mma's latency hides
              // behind the others.
#pragma unroll
        for (int s = 0; s < 2; ++s)
#pragma unroll
          for (int di = -1; di <= 1; ++di)
#pragma unroll
            for (int t = 0; t < kTiles; ++t)
              if (F::reaches(di, dj, t))
#pragma unroll
                for (int strip = 0; strip < kStrips; ++strip)
                  Mma::mma(acc[(kPhase + 3 - di) % 3][strip][t], fragment[s][strip],
                           s == 0 ? b[di + 1][t].x : b[di + 1][t].z,
                           s == 0 ? b[di + 1][t].y : b[di + 1][t].w);
      }
    }
    constexpr int kPrevious = (kPhase + 2) % 3;
    if (i - 1 >= unit.first_stored) finish(std::integral_constant<int, kPrevious>{}, unit, i - 1);
    clear(kPrevious);  // now row i + 2's
    if (i == shape.height - 1 && i < unit.end_stored)
      finish(std::integral_constant<int, kPhase>{}, unit, i);
    slot = slot == kInputSlots - 1 ? 0 : slot + 1;
  };

  for (long long index = first_unit; index < a.units; index += unit_stride) {
    const UnitRows unit = UnitRows::of(index, a);
    clear(0);
    clear(1);
    clear(2);
    const int rows = unit.last_row - unit.first_row + 1;
    for (int j = 0; j < rows; j += 3) {
      multiply_row(std::integral_constant<int, 0>{}, unit, unit.first_row + j);
      if (j + 1 < rows)
        multiply_row(std::integral_constant<int, 1>{}, unit, unit.first_row + j + 1);
      if (j + 2 < rows)
        multiply_row(std::integral_constant<int, 2>{}, unit, unit.first_row + j + 2);
    }
  }
  cudalabs::async_copy_wait<0>();
}

template <class T, int kGroups32, int kK>
void launch_rgb(const TconvShape& shape, const T* input, const float* packed, const float* bias,
                float* output, cudaStream_t stream, const char* who) {
  using F = RgbPlan<T, kGroups32, kK>;
  const auto kernel = rgb_superpixel_kernel<T, kGroups32, kK>;
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(kernel), F::kSharedBytes);
  int per_sm = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarps * 32, F::kSharedBytes));
  const long long resident_blocks =
      static_cast<long long>(std::max(per_sm, 1)) * cudalabs::multiprocessor_count();
  constexpr int kUnitColumns = kStrips * kTilePixels;
  const int groups = (shape.width + kUnitColumns - 1) / kUnitColumns;
  const RgbBands bands = plan_rgb_bands(shape.height, static_cast<long long>(shape.batch) * groups,
                                        resident_blocks * kWarps);
  const long long units = static_cast<long long>(shape.batch) * bands.bands * groups;
  const long long blocks = std::min((units + kWarps - 1) / kWarps, resident_blocks);
  kernel<<<static_cast<unsigned>(blocks), kWarps * 32, F::kSharedBytes, stream>>>(
      RgbArgs<T>{shape, input, packed, bias, output, units, groups, bands.bands, bands.band_rows,
                 cudalabs::aligned_to(output, 8)});
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
    throw std::invalid_argument(std::string(who) + ": in_channels = " +
                                std::to_string(shape.in_channels) + " is not 32, 64 or 96");
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
