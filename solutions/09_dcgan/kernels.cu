// Lab 09 solution: the transposed convolution four ways.
//
// - naive: one thread per output value visits all 25 taps and skips, by a branch, the 3 in 4 that
//   fall on inserted zeros; neighbouring threads are neighbouring channels k, so their writes coalesce
//   and they read the same input pixel (a broadcast).
// - branch-free: the loop bounds do the skipping: r starts at the parity of y + 1 and steps by 2,
//   between the first and last rows that land inside the input; no thread evaluates a dead tap.
// - lowering (eqs. 11-12): each thread writes one element of I'; the zeros of J are written too,
//   which is why the GEMM that follows does 4x the useful work.
// - sub-pixel: each output phase is a small dense convolution, done as an implicit GEMM whose A tile
//   is gathered straight from the input (no I' in memory) with the 8 x 8 register tiles of labs 05-07;
//   the RGB layer, with 3 output channels, takes one thread per output pixel instead.
#include "labs/09_dcgan/epilogue.cuh"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/subpixel.h"

namespace lab09 {
namespace {

using cudalabs::dcgan::TconvShape;

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
        const int row2 = o.y + 1 - r, col2 = o.x + 1 - s_tap;  // twice the input position, when even
        // The branch seed 000 removes next: three taps in four land on an inserted zero.
        if ((row2 & 1) == 0 && (col2 & 1) == 0 && row2 >= 0 && col2 >= 0 && row2 / 2 < s.height && col2 / 2 < s.width) {
          const float* in = args.input + ((static_cast<long long>(o.n) * s.height + row2 / 2) * s.width + col2 / 2) *
                                             s.in_channels;
          const float* taps = args.filter + ((static_cast<long long>(r) * 5 + s_tap) * s.out_channels + o.k) * s.in_channels;
          sum += dot_channels(in, taps, s.in_channels);
        }
      }
    }
    args.output[e] = apply_epilogue(args.epilogue, sum, o.k);
  }
}

// The taps r of one axis that meet a real input row for output y: r = y + 1 - 2 i for input rows i
// in [0, size), i.e. r in [max(0, y + 3 - 2 size), min(4, y + 1)] with the parity of y + 1.
__device__ __forceinline__ int first_tap(int y, int size) {
  int lo = max(0, y + 3 - 2 * size);
  return lo + ((lo ^ (y + 1)) & 1);
}
__device__ __forceinline__ int last_tap(int y) { return min(4, y + 1); }

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
        const float* in = args.input + ((static_cast<long long>(o.n) * s.height + i) * s.width + j) * s.in_channels;
        const float* taps = args.filter + ((static_cast<long long>(r) * 5 + s_tap) * s.out_channels + o.k) * s.in_channels;
        sum += dot_channels(in, taps, s.in_channels);
      }
    }
    args.output[e] = apply_epilogue(args.epilogue, sum, o.k);
  }
}

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
    if (row2 >= 0 && col2 >= 0 && (row2 & 1) == 0 && (col2 & 1) == 0 && row2 / 2 < s.height && col2 / 2 < s.width) {
      value = input[((n * s.height + row2 / 2) * s.width + col2 / 2) * s.in_channels + c];
    }
    lowered[e] = value;
  }
}

// Sub-pixel implicit GEMM. Tile kTileM x kTileN x 8 (8 = one tap's run of 8 channels), 8 x kThreadN
// outputs per thread in 4 x 4 pieces spread half a tile apart in rows and kTileN / (kThreadN / 4) in columns, so that the float4 shared-memory reads
// of a quarter warp touch consecutive addresses (no bank conflict). The next tile is fetched into
// registers while the current one is multiplied; two shared buffers, one barrier per step.
//
// Registers: 64 accumulators, 16 operands, the prefetched tile and addresses need about 140; capped
// at 128 (__launch_bounds__ with kMinBlocks), two 256-thread blocks fit on an SM, and one block's
// multiply hides the other's barrier and loads.
//
// kThreadN (8 or 16) columns per thread: 16 (the 128 x 256 tile of the 256-channel layer) doubles the
// FMAs per shared load and per barrier, at the price of one block per SM.
template <int kTileM, int kTileN, int kThreadN, int kMinBlocks>
__global__ void __launch_bounds__((kTileM / 8) * (kTileN / kThreadN), kMinBlocks) subpixel_tconv_kernel(TconvArgs args) {
  constexpr int kThreads = (kTileM / 8) * (kTileN / kThreadN);
  constexpr int kQuads = kThreadN / 4;          // float4 column groups per thread
  constexpr int kQuadStep = kTileN / kQuads;    // ... spread this far apart: conflict-free LDS.128
  constexpr int kK = subpixel::kTileK;
  constexpr int kPadM = 4;  // the transposing stores of a warp then hit 32 different banks
  constexpr int kALoads = kTileM * kK / 4 / kThreads;
  constexpr int kBLoads = kK * kTileN / 4 / kThreads;
  static_assert(kALoads >= 1 && kBLoads >= 1, "every thread loads at least one float4 of each tile");
  __shared__ __align__(16) float a_tile[2][kK][kTileM + kPadM];
  __shared__ __align__(16) float b_tile[2][kK][kTileN];

  const TconvShape s = args.shape;
  const int z = blockIdx.z, py = subpixel::phase_row(z), px = subpixel::phase_col(z);
  const int taps_x = subpixel::taps(px);
  const int channels = s.in_channels, out_channels = s.out_channels;
  const int k_tiles = subpixel::taps(py) * taps_x * channels / kK;
  const long long rows = static_cast<long long>(s.batch) * s.height * s.width;
  const long long row0 = static_cast<long long>(blockIdx.x) * kTileM;
  const int col0 = blockIdx.y * kTileN;
  const float* b_matrix = args.filter + subpixel::phase_start(z, channels, out_channels);
  const int tid = threadIdx.x;

  // Each thread gathers the same A rows at every step: find their pixels once.
  int a_i[kALoads], a_j[kALoads];
  const float* a_image[kALoads];
  for (int l = 0; l < kALoads; ++l) {
    const long long m = row0 + (tid + l * kThreads) / 2;
    const long long pixel = m < rows ? m : 0;
    const long long n = pixel / (static_cast<long long>(s.height) * s.width);
    const int rest = static_cast<int>(pixel - n * s.height * s.width);
    a_i[l] = m < rows ? rest / s.width : -(1 << 20);  // an invalid row never passes the bounds test
    a_j[l] = rest % s.width;
    a_image[l] = args.input + n * s.height * s.width * channels;
  }

  // The reduction index k0 = (ty * taps_x + tx) * C + c0 advances 8 at a time; tracking (ty, tx, c0)
  // as a cursor spares two integer divisions per step (a step is only 512 FMAs per thread).
  struct Cursor {
    int k0, c0, tx, ty;
  } next{0, 0, 0, 0};
  float4 a_next[kALoads], b_next[kBLoads];
  auto fetch = [&]() {
    const int di = subpixel::input_offset(py, next.ty), dj = subpixel::input_offset(px, next.tx);
    for (int l = 0; l < kALoads; ++l) {
      const int half = (tid + l * kThreads) & 1;
      const int i = a_i[l] + di, j = a_j[l] + dj;
      a_next[l] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (i >= 0 && i < s.height && j >= 0 && j < s.width) {
        a_next[l] = *reinterpret_cast<const float4*>(a_image[l] + (static_cast<long long>(i) * s.width + j) * channels +
                                                     next.c0 + half * 4);
      }
    }
    for (int l = 0; l < kBLoads; ++l) {
      const int q = tid + l * kThreads;
      const int row = q / (kTileN / 4), col = col0 + (q % (kTileN / 4)) * 4;
      b_next[l] = col < out_channels ? *reinterpret_cast<const float4*>(
                                           b_matrix + static_cast<long long>(next.k0 + row) * out_channels + col)
                                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    next.k0 += kK;
    next.c0 += kK;
    if (next.c0 == channels) {
      next.c0 = 0;
      if (++next.tx == taps_x) {
        next.tx = 0;
        ++next.ty;
      }
    }
  };
  auto stage = [&](int buffer) {
    for (int l = 0; l < kALoads; ++l) {
      const int q = tid + l * kThreads, row = q / 2, k = (q & 1) * 4;
      a_tile[buffer][k + 0][row] = a_next[l].x;
      a_tile[buffer][k + 1][row] = a_next[l].y;
      a_tile[buffer][k + 2][row] = a_next[l].z;
      a_tile[buffer][k + 3][row] = a_next[l].w;
    }
    for (int l = 0; l < kBLoads; ++l) {
      const int q = tid + l * kThreads;
      *reinterpret_cast<float4*>(&b_tile[buffer][q / (kTileN / 4)][(q % (kTileN / 4)) * 4]) = b_next[l];
    }
  };

  // [walkthrough]
  const int thread_row = (tid / (kTileN / kThreadN)) * 4, thread_col = (tid % (kTileN / kThreadN)) * 4;
  float acc[8][kThreadN] = {};
  fetch();
  stage(0);
  __syncthreads();
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    const int buffer = k_tile & 1;
    if (k_tile + 1 < k_tiles) fetch();  // tile k_tile + 1: global loads in flight during the multiply
#pragma unroll
    for (int k = 0; k < kK; ++k) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&a_tile[buffer][k][thread_row]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&a_tile[buffer][k][thread_row + kTileM / 2]);
      const float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      float b[kThreadN];
#pragma unroll
      for (int quad = 0; quad < kQuads; ++quad) {
        const float4 v = *reinterpret_cast<const float4*>(&b_tile[buffer][k][thread_col + quad * kQuadStep]);
        b[4 * quad + 0] = v.x;
        b[4 * quad + 1] = v.y;
        b[4 * quad + 2] = v.z;
        b[4 * quad + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (k_tile + 1 < k_tiles) stage(buffer ^ 1);
    __syncthreads();
  }
  // [walkthrough]

  // Row m of phase (py, px) is input pixel (n, i, j): its output pixel is (n, 2 i + py, 2 j + px).
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const long long m = row0 + thread_row + (i < 4 ? i : kTileM / 2 + i - 4);
    if (m >= rows) continue;
    const long long n = m / (static_cast<long long>(s.height) * s.width);
    const int rest = static_cast<int>(m - n * s.height * s.width);
    const int y = 2 * (rest / s.width) + py, x = 2 * (rest % s.width) + px;
    float* out = args.output + ((n * 2 * s.height + y) * 2 * s.width + x) * out_channels;
#pragma unroll
    for (int quad = 0; quad < kQuads; ++quad) {
      const int col = col0 + thread_col + quad * kQuadStep;
      if (col >= out_channels) continue;
      float4 v;
      v.x = apply_epilogue(args.epilogue, acc[i][quad * 4 + 0], col + 0);
      v.y = apply_epilogue(args.epilogue, acc[i][quad * 4 + 1], col + 1);
      v.z = apply_epilogue(args.epilogue, acc[i][quad * 4 + 2], col + 2);
      v.w = apply_epilogue(args.epilogue, acc[i][quad * 4 + 3], col + 3);
      *reinterpret_cast<float4*>(out + col) = v;
    }
  }
}

// The RGB layer (K <= 4): a GEMM with 3 columns re-reads each input value for 3 FMAs only, so the
// loads, not the FMAs, set the pace. One thread therefore computes a 2 x 8 patch of outputs, all
// four phases of input pixels (i, 4 g .. 4 g + 3): output (2 i + py, 2 j + px) takes input row i + d
// through filter row r = py + 1 - 2 d (when 0 <= r <= 4), likewise columns. Reading the 3 x 6 input
// neighbourhood once, 4 channels at a time, feeds 1600 FMAs per 18 global loads; the filter sits in
// shared memory as one float4 of output channels per (r, s, c), and each such load feeds 16 FMAs.
// All loops over d, py, px and the column offset are unrolled, so the validity tests fold away and
// the 64 accumulators stay in registers.
__global__ void subpixel_small_k_kernel(TconvArgs args) {
  extern __shared__ float4 filter4[];  // [r][s][c]: output channels 0..K-1, zero-padded to 4
  const TconvShape s = args.shape;
  const int channels = s.in_channels, out_channels = s.out_channels;
  // Unpack the packed filter (subpixel.h) into [r][s][c] order.
  for (int row = threadIdx.x; row < 25 * channels; row += blockDim.x) {
    int z = 0, rest = row / channels;
    while (rest >= subpixel::taps(subpixel::phase_row(z)) * subpixel::taps(subpixel::phase_col(z))) {
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
                     ? *reinterpret_cast<const float4*>(row + static_cast<long long>(column) * channels + c)
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
        float* out = args.output + ((n * 2 * s.height + 2 * i + py) * 2 * s.width + 2 * j0 + column) * out_channels;
        // A constant trip count keeps acc in registers (a loop to out_channels would index it at run time).
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
