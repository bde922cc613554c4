// Lab 09 solution: the transposed convolution, written directly and lowered to a GEMM (the core),
// then as sub-pixel phases (the optional challenge).
//
// - naive: one thread per output value visits all 25 taps and skips, by a branch, the 3 in 4 that
//   fall on inserted zeros; neighbouring threads are neighbouring channels k, so their writes
//   coalesce and they read the same input pixel (a broadcast).
// - branch-free: the loop bounds do the skipping: r starts at the parity of y + 1 and steps by 2,
//   between the first and last rows that land inside the input; no thread evaluates a dead tap.
//   It reuses the naive kernel's helpers (split_output, dot_channels).
// - lowering (eqs. 11-12): each thread writes one element of I'; the zeros of J are written too,
//   which is why the GEMM that follows does 4x the useful work.
// - sub-pixel (the challenge, below the marker): each output phase is a small dense convolution,
//   done as an implicit GEMM whose A tile is gathered straight from the input (no I' in memory),
//   multiplied on lab 07's warp tile; the RGB layer, with 3 output channels, takes a 2 x 8 patch of
//   output pixels per thread instead.
#include "labs/09_dcgan/epilogue.cuh"
#include "labs/09_dcgan/lab.h"

namespace lab09 {
namespace {

using cudalabs::dcgan::TconvShape;

// [naive]
// Splits a flat output index (k fastest) into image, row, column and channel.
struct OutputIndex {
  int n, y, x, k;
};
__device__ __forceinline__ OutputIndex split_output(long long e, const TconvShape& s) {
  OutputIndex o;
  o.k = static_cast<int>(e % s.out_channels);
  e /= s.out_channels;
  o.x = static_cast<int>(e % (2 * s.width));
  e /= 2 * s.width;
  o.y = static_cast<int>(e % (2 * s.height));
  o.n = static_cast<int>(e / (2 * s.height));
  return o;
}

__device__ __forceinline__ float dot_channels(const float* in, const float* taps, int channels) {
  float sum = 0.0f;
  for (int c = 0; c < channels; ++c) sum = fmaf(in[c], taps[c], sum);
  return sum;
}

__global__ void naive_tconv_kernel(TconvArgs args) {
  const TconvShape s = args.shape;
  const long long total = static_cast<long long>(s.batch) * 4 * s.height * s.width * s.out_channels;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const OutputIndex o = split_output(e, s);
    float sum = 0.0f;
    for (int r = 0; r < 5; ++r) {
      for (int s_tap = 0; s_tap < 5; ++s_tap) {
        const int row2 = o.y + 1 - r,
                  col2 = o.x + 1 - s_tap;  // twice the input position, when even
        // The branch [DCGAN-SHPC] removes next: three taps in four land on an inserted zero.
        if ((row2 & 1) == 0 && (col2 & 1) == 0 && row2 >= 0 && col2 >= 0 && row2 / 2 < s.height &&
            col2 / 2 < s.width) {
          const float* in =
              args.input +
              ((static_cast<long long>(o.n) * s.height + row2 / 2) * s.width + col2 / 2) *
                  s.in_channels;
          const float* taps =
              args.filter +
              ((static_cast<long long>(r) * 5 + s_tap) * s.out_channels + o.k) * s.in_channels;
          sum += dot_channels(in, taps, s.in_channels);
        }
      }
    }
    args.output[e] = apply_epilogue(args.epilogue, sum, o.k);
  }
}
// [naive]

// [branch_free]
// The taps r of one axis that meet a real input row for output y: r = y + 1 - 2 i for input rows i
// in [0, size), i.e. r in [max(0, y + 3 - 2 size), min(4, y + 1)] with the parity of y + 1.
__device__ __forceinline__ int first_tap(int y, int size) {
  int lo = max(0, y + 3 - 2 * size);
  return lo + ((lo ^ (y + 1)) & 1);
}
__device__ __forceinline__ int last_tap(int y) {
  return min(4, y + 1);
}

__global__ void branch_free_tconv_kernel(TconvArgs args) {
  const TconvShape s = args.shape;
  const long long total = static_cast<long long>(s.batch) * 4 * s.height * s.width * s.out_channels;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const OutputIndex o = split_output(e, s);
    float sum = 0.0f;
    const int r_end = last_tap(o.y), s_end = last_tap(o.x), s_begin = first_tap(o.x, s.width);
    for (int r = first_tap(o.y, s.height); r <= r_end; r += 2) {
      const int i = (o.y + 1 - r) / 2;
      for (int s_tap = s_begin; s_tap <= s_end; s_tap += 2) {
        const int j = (o.x + 1 - s_tap) / 2;
        const float* in =
            args.input +
            ((static_cast<long long>(o.n) * s.height + i) * s.width + j) * s.in_channels;
        const float* taps =
            args.filter +
            ((static_cast<long long>(r) * 5 + s_tap) * s.out_channels + o.k) * s.in_channels;
        sum += dot_channels(in, taps, s.in_channels);
      }
    }
    args.output[e] = apply_epilogue(args.epilogue, sum, o.k);
  }
}
// [branch_free]

// [lowering]
__global__ void lower_input_kernel(TconvShape s, const float* input, float* lowered) {
  const long long columns = 25LL * s.in_channels;
  const long long total = static_cast<long long>(s.batch) * 4 * s.height * s.width * columns;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long d = e / columns;  // output pixel (n, y, x)
    const int column = static_cast<int>(e - d * columns);
    const int c = column % s.in_channels, tap = column / s.in_channels;
    const int r = tap / 5, s_tap = tap % 5;
    const int x = static_cast<int>(d % (2 * s.width));
    const int y = static_cast<int>((d / (2 * s.width)) % (2 * s.height));
    const long long n = d / (4LL * s.height * s.width);
    // J[y + r][x + s]: 3 zero rows before the input, one zero between input rows.
    const int row2 = y + r - 3, col2 = x + s_tap - 3;
    float value = 0.0f;
    if (row2 >= 0 && col2 >= 0 && (row2 & 1) == 0 && (col2 & 1) == 0 && row2 / 2 < s.height &&
        col2 / 2 < s.width) {
      value = input[((n * s.height + row2 / 2) * s.width + col2 / 2) * s.in_channels + c];
    }
    lowered[e] = value;
  }
}
// [lowering]

}  // namespace
}  // namespace lab09

// ---- The optional challenge: the sub-pixel transposed convolution ----
// Its own variant (subpixel), tests and points. Lab 07's warp tile (lane pieces, fragment loads,
// the register-staged tile loop) is included here, below the marker: only the challenge uses it.
#include "labs/07_wide_loads/lab.h"
#include "labs/09_dcgan/subpixel.h"
#include "solutions/07_wide_loads/warp_tile.cuh"

namespace lab09 {
namespace {

// Sub-pixel implicit GEMM on lab 07's warp tile. Block tile kTileM x kTileN, stepping 8 along the
// reduction (8 = one tap's run of 8 channels); (kTileM / 8) * (kTileN / kThreadN) threads in two
// warp rows, each lane an 8 x kThreadN patch of 4 x 4 pieces
// (solutions/07_wide_loads/warp_tile.cuh), so that the fragment loads are conflict-free LDS.128 and
// 4-6 of them feed 64-128 FFMAs. What differs from lab 07's GEMM is where A comes from: row m of
// phase (py, px) is input pixel (n, i, j), and its step (tap, c0) reads channels c0 .. c0 + 7 of
// pixel (i + di, j + dj), zeros outside the image.
//
// The rows run over (i, j, n), image fastest, not over (n, i, j): then a block's kTileM rows are a
// few pixel positions (one, when the batch is a multiple of kTileM) in many images, and the taps
// that fall outside the image for all of them are skipped, not multiplied by zeros. At a 4 x 4
// input that is 28 % of the phase GEMMs' work (8 x 8: 14 %, 16 x 16: 7 %). The reads stay 32-byte
// runs of channels.
//
// Pipelining is lab 07's own tile loop (multiply_staged_tiles): the next tile is fetched into
// registers while the current one is multiplied, two shared buffers (one barrier per step), and
// step k + 1's fragments are read from shared memory while step k's FFMAs run.
//
// kMinBlocks is the occupancy __launch_bounds__ sets the register budget for (launch.cuh).
template <int kTileM, int kTileN, int kThreadN, int kMinBlocks>
struct PhaseGemmBlock {
  static constexpr int kThreads = (kTileM / 8) * (kTileN / kThreadN);
  using Tile =
      lab07::TileShape<kTileM, kTileN, subpixel::kTileK, 2, kThreads / 64, 8, kThreadN, kMinBlocks>;
  static constexpr int BM = kTileM, BN = kTileN, BK = subpixel::kTileK, TM = Tile::TM,
                       TN = Tile::TN;
  static constexpr int kAVectors = BM * BK / 4 / kThreads;  // float4s of A per thread per step
  static constexpr int kBVectors = BK * BN / 4 / kThreads;
  static_assert(Tile::kThreads == kThreads, "two warp rows must cover the block");
  static_assert(kAVectors >= 1 && kBVectors >= 1,
                "every thread loads at least one float4 of each tile");
  using ATile = float[BK][BM + lab07::kPadA];  // A transposed: a_tile[k][m]
  using BTile = float[BK][BN];

  const TconvArgs& args;
  ATile* a_tile;  // two buffers
  BTile* b_tile;
  int batch, height, width, channels, out_channels, py, px, taps_x, col0, tid;
  long long rows, row0;
  // The taps some row of this block meets inside the image: ty in [ty_begin, ty_end), likewise tx.
  int ty_begin, ty_end, tx_begin, tx_end;
  const float* b_matrix;  // phase z's packed filter: taps * C rows, out_channels columns
  bool full_columns;      // the block's kTileN columns all exist: B loads need no test
  lab07::LanePieces<Tile> lane;
  // The pixel each of this thread's A rows gathers from, found once: its row and column (an invalid
  // row gets a row index that fails every bounds test) and its image's first channel.
  int a_i[kAVectors], a_j[kAVectors];
  const float* a_image[kAVectors];
  // The next step's tap and channels, kept as a cursor over the block's taps: it spares two integer
  // divisions per step, and a step is only 64-128 FFMAs per thread.
  int next_c0 = 0, next_tx, next_ty;
  float4 a_staged[kAVectors], b_staged[kBVectors];
  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];

  __device__ PhaseGemmBlock(const TconvArgs& tconv, ATile* a, BTile* b)
      : args(tconv), a_tile(a), b_tile(b) {
    const TconvShape& s = args.shape;
    batch = s.batch;
    height = s.height;
    width = s.width;
    channels = s.in_channels;
    out_channels = s.out_channels;
    const int z = blockIdx.z;
    py = subpixel::phase_row(z);
    px = subpixel::phase_col(z);
    taps_x = subpixel::taps(px);
    rows = static_cast<long long>(s.batch) * height * width;
    row0 = static_cast<long long>(blockIdx.x) * BM;
    col0 = blockIdx.y * BN;
    full_columns = col0 + BN <= out_channels;
    b_matrix = args.filter + subpixel::phase_start(z, channels, out_channels);
    tid = threadIdx.x;
#pragma unroll
    for (int r = 0; r < kAVectors; ++r) {
      const long long m = row0 + (tid + r * kThreads) / (BK / 4);
      const int n = m < rows ? static_cast<int>(m % batch) : 0;
      const int position = m < rows ? static_cast<int>(m / batch) : 0;
      a_i[r] = m < rows ? position / width : -(1 << 20);
      a_j[r] = position % width;
      a_image[r] = args.input + static_cast<long long>(n) * height * width * channels;
    }
    // Positions first .. last: rows i_first .. i_last, and columns j_first .. j_last when that is
    // one row (otherwise every column).
    const int first = static_cast<int>(row0 / batch),
              last = static_cast<int>((min(row0 + BM, rows) - 1) / batch);
    const int i_first = first / width, i_last = last / width;
    const bool one_row = i_first == i_last;
    tap_range(py, i_first, i_last, height, ty_begin, ty_end);
    tap_range(px, one_row ? first % width : 0, one_row ? last % width : width - 1, width, tx_begin,
              tx_end);
    next_ty = ty_begin;
    next_tx = tx_begin;
  }

  // The taps t of parity p for which some input index in [first, last] plus the tap's offset lies
  // in [0, size): offsets fall as t grows, so they are a range [begin, end), never empty (offset 0
  // is a tap).
  static __device__ __forceinline__ void tap_range(int parity, int first, int last, int size,
                                                   int& begin, int& end) {
    begin = 0;
    end = subpixel::taps(parity);
    while (first + subpixel::input_offset(parity, begin) >= size) ++begin;
    while (last + subpixel::input_offset(parity, end - 1) < 0) --end;
  }

  // Global -> registers: the step at the cursor, then advance it.
  __device__ __forceinline__ void load_next_tile() {
    const int di = subpixel::input_offset(py, next_ty), dj = subpixel::input_offset(px, next_tx);
    const int k0 = (next_ty * taps_x + next_tx) * channels + next_c0;  // row of the packed filter
#pragma unroll
    for (int r = 0; r < kAVectors; ++r) {
      const int v = tid + r * kThreads, k = v % (BK / 4) * 4;
      const int i = a_i[r] + di, j = a_j[r] + dj;
      a_staged[r] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (i >= 0 && i < height && j >= 0 && j < width) {
        a_staged[r] = __ldg(reinterpret_cast<const float4*>(
            a_image[r] + (static_cast<long long>(i) * width + j) * channels + next_c0 + k));
      }
    }
#pragma unroll
    for (int r = 0; r < kBVectors; ++r) {
      const int v = tid + r * kThreads;
      const int row = v / (BN / 4), col = col0 + v % (BN / 4) * 4;
      b_staged[r] = full_columns || col < out_channels
                        ? __ldg(reinterpret_cast<const float4*>(
                              b_matrix + static_cast<long long>(k0 + row) * out_channels + col))
                        : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    next_c0 += BK;
    if (next_c0 == channels) {
      next_c0 = 0;
      if (++next_tx == tx_end) {
        next_tx = tx_begin;
        ++next_ty;
      }
    }
  }

  // Lab 07's tile loop over this block's taps (warp_tile.cuh), then the epilogue.
  __device__ __forceinline__ void run() {
    lab07::multiply_staged_tiles<Tile>(*this,
                                       (ty_end - ty_begin) * (tx_end - tx_begin) * channels / BK);
    store_outputs();
  }

  // Row m = (i * W + j) * batch + n of phase (py, px) is input pixel (n, i, j): its outputs go to
  // pixel (n, 2 i + py, 2 j + px), through the epilogue, four channels per 128-bit store.
  __device__ __forceinline__ void store_outputs() {
#pragma unroll
    for (int g = 0; g < TM / 4; ++g) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const long long m = row0 + lane.row + g * Tile::LANES_M * 4 + r;
        if (m >= rows) continue;
        const long long n = m % batch;
        const int position = static_cast<int>(m / batch);
        const int y = 2 * (position / width) + py, x = 2 * (position % width) + px;
        float* out = args.output + ((n * 2 * height + y) * 2 * width + x) * out_channels;
#pragma unroll
        for (int h = 0; h < TN / 4; ++h) {
          const int col = col0 + lane.col + h * Tile::LANES_N * 4;
          if (col >= out_channels) continue;
          const float* values = &acc[4 * g + r][4 * h];
          float4 v;
          v.x = apply_epilogue(args.epilogue, values[0], col + 0);
          v.y = apply_epilogue(args.epilogue, values[1], col + 1);
          v.z = apply_epilogue(args.epilogue, values[2], col + 2);
          v.w = apply_epilogue(args.epilogue, values[3], col + 3);
          *reinterpret_cast<float4*>(out + col) = v;
        }
      }
    }
  }
};

template <int kTileM, int kTileN, int kThreadN, int kMinBlocks>
__global__ void __launch_bounds__((kTileM / 8) * (kTileN / kThreadN), kMinBlocks)
    subpixel_tconv_kernel(TconvArgs args) {
  using Block = PhaseGemmBlock<kTileM, kTileN, kThreadN, kMinBlocks>;
  __shared__ __align__(16) typename Block::ATile a_tile[2];
  __shared__ __align__(16) typename Block::BTile b_tile[2];
  Block block(args, a_tile, b_tile);
  block.run();
}

// The RGB layer (K <= 4): a GEMM with 3 columns re-reads each input value for 3 FMAs only, so the
// loads, not the FMAs, set the pace. One thread therefore computes a 2 x 8 patch of outputs, all
// four phases of input pixels (i, 4 g .. 4 g + 3): output (2 i + py, 2 j + px) takes input row i +
// d through filter row r = py + 1 - 2 d (when 0 <= r <= 4), likewise columns. Reading the 3 x 6
// input neighbourhood once, 4 channels at a time, feeds 1600 FMAs per 18 global loads; the filter
// sits in shared memory as one float4 of output channels per (r, s, c), and each such load feeds 16
// FMAs. All loops over d, py, px and the column offset are unrolled, so the validity tests fold
// away and the 64 accumulators stay in registers.
__global__ void subpixel_small_k_kernel(TconvArgs args) {
  extern __shared__ float4 filter4[];  // [r][s][c]: output channels 0..K-1, zero-padded to 4
  const TconvShape s = args.shape;
  const int channels = s.in_channels, out_channels = s.out_channels;
  // Unpack the packed filter (subpixel.h) into [r][s][c] order.
  for (int row = threadIdx.x; row < 25 * channels; row += blockDim.x) {
    int z = 0, rest = row / channels;
    while (rest >=
           subpixel::taps(subpixel::phase_row(z)) * subpixel::taps(subpixel::phase_col(z))) {
      rest -= subpixel::taps(subpixel::phase_row(z)) * subpixel::taps(subpixel::phase_col(z));
      ++z;
    }
    const int taps_x = subpixel::taps(subpixel::phase_col(z));
    const int r = subpixel::filter_index(subpixel::phase_row(z), rest / taps_x);
    const int s_tap = subpixel::filter_index(subpixel::phase_col(z), rest % taps_x);
    const float* from = args.filter + static_cast<long long>(row) * out_channels;
    filter4[(r * 5 + s_tap) * channels + row % channels] =
        make_float4(from[0], out_channels > 1 ? from[1] : 0.0f, out_channels > 2 ? from[2] : 0.0f,
                    out_channels > 3 ? from[3] : 0.0f);
  }
  __syncthreads();

  constexpr int kPixels = subpixel::kSmallKPixels;  // input columns per thread
  const int groups = (s.width + kPixels - 1) / kPixels;
  const long long items = static_cast<long long>(s.batch) * s.height * groups;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < items;
       p += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int g = static_cast<int>(p % groups);
    const int i = static_cast<int>((p / groups) % s.height);
    const long long n = p / (static_cast<long long>(groups) * s.height);
    const int j0 = g * kPixels;
    float acc[2][2 * kPixels][4] = {};  // [py][2 q + px][k]
#pragma unroll
    for (int d = -1; d <= 1; ++d) {
      const int input_row = i + d;
      if (input_row < 0 || input_row >= s.height) continue;
      const float* row = args.input + (n * s.height + input_row) * s.width * channels;
      for (int c = 0; c < channels; c += 4) {
        float4 x[kPixels + 2];  // input columns j0 - 1 .. j0 + kPixels
#pragma unroll
        for (int e = 0; e < kPixels + 2; ++e) {
          const int column = j0 - 1 + e;
          x[e] = column >= 0 && column < s.width
                     ? *reinterpret_cast<const float4*>(
                           row + static_cast<long long>(column) * channels + c)
                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
#pragma unroll
        for (int py = 0; py < 2; ++py) {
          const int r = py + 1 - 2 * d;
          if (r < 0 || r > 4) continue;
#pragma unroll
          for (int px = 0; px < 2; ++px) {
#pragma unroll
            for (int e = -1; e <= 1; ++e) {
              const int s_tap = px + 1 - 2 * e;
              if (s_tap < 0 || s_tap > 4) continue;
              const float4* w = filter4 + (r * 5 + s_tap) * channels + c;
              const float4 w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];  // channels c .. c + 3
#pragma unroll
              for (int q = 0; q < kPixels; ++q) {
                const float4 v = x[q + e + 1];
                float* a = acc[py][2 * q + px];
                a[0] = fmaf(v.x, w0.x, fmaf(v.y, w1.x, fmaf(v.z, w2.x, fmaf(v.w, w3.x, a[0]))));
                a[1] = fmaf(v.x, w0.y, fmaf(v.y, w1.y, fmaf(v.z, w2.y, fmaf(v.w, w3.y, a[1]))));
                a[2] = fmaf(v.x, w0.z, fmaf(v.y, w1.z, fmaf(v.z, w2.z, fmaf(v.w, w3.z, a[2]))));
                a[3] = fmaf(v.x, w0.w, fmaf(v.y, w1.w, fmaf(v.z, w2.w, fmaf(v.w, w3.w, a[3]))));
              }
            }
          }
        }
      }
    }
#pragma unroll
    for (int py = 0; py < 2; ++py) {
#pragma unroll
      for (int column = 0; column < 2 * kPixels; ++column) {
        if (j0 + column / 2 >= s.width) continue;
        float* out =
            args.output +
            ((n * 2 * s.height + 2 * i + py) * 2 * s.width + 2 * j0 + column) * out_channels;
        // A constant trip count keeps acc in registers (a loop to out_channels would index it at
        // run time).
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if (k < out_channels) out[k] = apply_epilogue(args.epilogue, acc[py][column][k], k);
        }
      }
    }
  }
}

}  // namespace
}  // namespace lab09

#include "labs/09_dcgan/launch.cuh"
