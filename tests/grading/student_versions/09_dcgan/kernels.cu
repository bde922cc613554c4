// Lab 09, a student's version of every kernel, written from the handout and the skeleton's comments
// alone (tests/grading/student_versions/README.md): the warp tile section and both sub-pixel
// kernels in one session, the naive, branch-free and lowering kernels in a later one.
//
// Lab 09: your kernels. Each TODO kernel below compiles and launches but writes nothing: the driver
// poisons every output first, so it reports "not implemented yet" until you fill it in.
//
// Read common/dcgan_model.h for the exact sum of the transposed convolution, lab.h for what each
// function must do, and subpixel.h for the phase decomposition. Apply `args.epilogue` to every
// value you write (apply_epilogue in epilogue.cuh): that is where bias, batch norm and ReLU go.
#include "labs/07_wide_loads/lab.h"
#include "labs/07_wide_loads/tiles.h"
#include "labs/09_dcgan/epilogue.cuh"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/subpixel.h"

namespace lab09 {
namespace {

// One thread per output value out[n][y][x][k], grid-stride over batch * 2H * 2W * K values (k the
// fastest index, so that neighbouring threads write neighbouring addresses). For each of the 25
// taps (r, s): the input row is (y + 1 - r) / 2 when y + 1 - r is even and the row is inside the
// input, likewise the column; sum input * filter[r][s][k][c] over c, then apply the epilogue.
__global__ void naive_tconv_kernel(TconvArgs args) {
  const cudalabs::dcgan::TconvShape& shape = args.shape;
  const int H = shape.height, W = shape.width, C = shape.in_channels, K = shape.out_channels;
  const long long total = static_cast<long long>(shape.batch) * 4 * H * W * K;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int k = static_cast<int>(e % K);
    const long long pixel = e / K;
    const int x = static_cast<int>(pixel % (2 * W));
    const int y = static_cast<int>((pixel / (2 * W)) % (2 * H));
    const long long n = pixel / (4LL * H * W);
    float sum = 0.0f;
    for (int r = 0; r < 5; ++r) {
      for (int s = 0; s < 5; ++s) {
        const int dy = y + 1 - r, dx = x + 1 - s;
        if (dy < 0 || dx < 0 || (dy & 1) || (dx & 1) || dy / 2 >= H || dx / 2 >= W) continue;
        const float* in = args.input + ((n * H + dy / 2) * W + dx / 2) * C;
        const float* filter = args.filter + ((r * 5 + s) * K + k) * C;
        for (int c = 0; c < C; ++c) sum += in[c] * filter[c];
      }
    }
    args.output[e] = apply_epilogue(args.epilogue, sum, k);
  }
}

// The same sum without the parity branch ([DCGAN-SHPC] §2.2.1): start r at the first value with
// y + 1 - r even and step by 2 (likewise s), so every visited tap lands on a real input pixel.
__global__ void branch_free_tconv_kernel(TconvArgs args) {
  const cudalabs::dcgan::TconvShape& shape = args.shape;
  const int H = shape.height, W = shape.width, C = shape.in_channels, K = shape.out_channels;
  const long long total = static_cast<long long>(shape.batch) * 4 * H * W * K;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int k = static_cast<int>(e % K);
    const long long pixel = e / K;
    const int x = static_cast<int>(pixel % (2 * W));
    const int y = static_cast<int>((pixel / (2 * W)) % (2 * H));
    const long long n = pixel / (4LL * H * W);
    // Input row i meets tap r = y + 1 - 2 i: r in [0, 4] and i in [0, H) bound the loop.
    const int i_first = y >= 3 ? (y - 2) / 2 : 0, i_last = min(H - 1, (y + 1) / 2);
    const int j_first = x >= 3 ? (x - 2) / 2 : 0, j_last = min(W - 1, (x + 1) / 2);
    float sum = 0.0f;
    for (int i = i_first; i <= i_last; ++i) {
      const int r = y + 1 - 2 * i;
      for (int j = j_first; j <= j_last; ++j) {
        const int s = x + 1 - 2 * j;
        const float* in = args.input + ((n * H + i) * W + j) * C;
        const float* filter = args.filter + ((r * 5 + s) * K + k) * C;
        for (int c = 0; c < C; ++c) sum += in[c] * filter[c];
      }
    }
    args.output[e] = apply_epilogue(args.epilogue, sum, k);
  }
}

// I' of [DCGAN-SHPC] eqs. 11-12: element (row d, column (r * 5 + s) * C + c) with d = (n, y, x) is
// J[y + r][x + s][c] of image n: the input pixel ((y + r - 3) / 2, (x + s - 3) / 2) when both
// y + r - 3 and x + s - 3 are even and inside the input, 0 otherwise. One thread per element.
__global__ void lower_input_kernel(cudalabs::dcgan::TconvShape shape, const float* input,
                                   float* lowered) {
  const int H = shape.height, W = shape.width, C = shape.in_channels;
  const long long total = static_cast<long long>(shape.batch) * 4 * H * W * 25 * C;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int c = static_cast<int>(e % C);
    const int tap = static_cast<int>((e / C) % 25);
    const long long d = e / (25LL * C);
    const int x = static_cast<int>(d % (2 * W));
    const int y = static_cast<int>((d / (2 * W)) % (2 * H));
    const long long n = d / (4LL * H * W);
    const int dy = y + tap / 5 - 3, dx = x + tap % 5 - 3;
    const bool real = dy >= 0 && dx >= 0 && !(dy & 1) && !(dx & 1) && dy / 2 < H && dx / 2 < W;
    lowered[e] = real ? input[((n * H + dy / 2) * W + dx / 2) * C + c] : 0.0f;
  }
}

// ---- Your warp tile, from lab 07 ----
// The sub-pixel GEMM below is lab 07's step 3 with another A: copy the four helpers of your lab 07
// kernels.cu here (they are the same code: only load_next_tile differs), replacing these stubs, or
// write them from this contract. Tile is a lab07::TileShape (labs/07_wide_loads/tiles.h).
//  - LanePieces<Tile>{row, col}: this lane's first 4 x 4 piece in the block tile (warp tile at
//    (w / WARPS_N) * WM, (w % WARPS_N) * WN, lane at (l / LANES_N) * 4, (l % LANES_N) * 4); the
//    other pieces follow every LANES_M * 4 rows and LANES_N * 4 columns.
//  - load_fragments<Tile>(a_row, b_row, lane, a_frag, b_frag): step k's TM values of A (from row k
//    of the transposed A tile) and TN of B, one LDS.128 per piece.
//  - outer_product(a_frag, b_frag, acc): the TM x TN FFMAs of one step.
//  - multiply_staged_tiles<Tile>(block, tiles): the register-staged, double-buffered tile loop with
//    the fragment prefetch, over a `block` object that holds a_tile[2][BK][BM + kPadA] and
//    b_tile[2][BK][BN] (shared), a_staged[] and b_staged[] (float4s: thread tid holds float4s tid,
//    tid + kThreads, ... of each tile), lane, a_frag[2][TM], b_frag[2][TN], acc[TM][TN], tid, and
//    load_next_tile(), which fills a_staged and b_staged with the next tile along K.
template <class Tile>
struct LanePieces {
  int row = 0, col = 0;
  __device__ LanePieces() {
    const int w = threadIdx.x / 32, l = threadIdx.x % 32;
    row = (w / Tile::WARPS_N) * Tile::WM + (l / Tile::LANES_N) * 4;
    col = (w % Tile::WARPS_N) * Tile::WN + (l % Tile::LANES_N) * 4;
  }
};

template <class Tile>
__device__ __forceinline__ void load_fragments(const float* a_row, const float* b_row,
                                               const LanePieces<Tile>& lane,
                                               float (&a_frag)[Tile::TM],
                                               float (&b_frag)[Tile::TN]) {
#pragma unroll
  for (int g = 0; g < Tile::TM / 4; ++g) {
    const float4 v = *reinterpret_cast<const float4*>(a_row + lane.row + g * Tile::LANES_M * 4);
    a_frag[4 * g] = v.x;
    a_frag[4 * g + 1] = v.y;
    a_frag[4 * g + 2] = v.z;
    a_frag[4 * g + 3] = v.w;
  }
#pragma unroll
  for (int h = 0; h < Tile::TN / 4; ++h) {
    const float4 v = *reinterpret_cast<const float4*>(b_row + lane.col + h * Tile::LANES_N * 4);
    b_frag[4 * h] = v.x;
    b_frag[4 * h + 1] = v.y;
    b_frag[4 * h + 2] = v.z;
    b_frag[4 * h + 3] = v.w;
  }
}

template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&a_frag)[TM], const float (&b_frag)[TN],
                                              float (&acc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
}

template <class Tile, class Block>
__device__ __forceinline__ void multiply_staged_tiles(Block& b, int tiles) {
  constexpr int BK = Tile::BK, BN = Tile::BN, T = Tile::kThreads;
  constexpr int AV = Tile::BM * BK / 4 / T, BV = BK * BN / 4 / T;
  auto store = [&](int buf) {
#pragma unroll
    for (int r = 0; r < AV; ++r) {
      const int v = b.tid + r * T, m = v / (BK / 4), k = v % (BK / 4) * 4;
      b.a_tile[buf][k][m] = b.a_staged[r].x;
      b.a_tile[buf][k + 1][m] = b.a_staged[r].y;
      b.a_tile[buf][k + 2][m] = b.a_staged[r].z;
      b.a_tile[buf][k + 3][m] = b.a_staged[r].w;
    }
#pragma unroll
    for (int r = 0; r < BV; ++r) {
      const int v = b.tid + r * T;
      *reinterpret_cast<float4*>(&b.b_tile[buf][v / (BN / 4)][v % (BN / 4) * 4]) = b.b_staged[r];
    }
  };
  b.load_next_tile();
  store(0);
  __syncthreads();
  load_fragments<Tile>(b.a_tile[0][0], b.b_tile[0][0], b.lane, b.a_frag[0], b.b_frag[0]);
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    const bool more = t + 1 < tiles;
    if (more) b.load_next_tile();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const int slot = k & 1;
      if (k + 1 < BK) {
        load_fragments<Tile>(b.a_tile[buf][k + 1], b.b_tile[buf][k + 1], b.lane, b.a_frag[slot ^ 1],
                             b.b_frag[slot ^ 1]);
      } else if (more) {
        store(buf ^ 1);
        __syncthreads();
        load_fragments<Tile>(b.a_tile[buf ^ 1][0], b.b_tile[buf ^ 1][0], b.lane, b.a_frag[slot ^ 1],
                             b.b_frag[slot ^ 1]);
      }
      outer_product(b.a_frag[slot], b.b_frag[slot], b.acc);
    }
  }
}

// ---- The sub-pixel transposed convolution: the phase mapping and the gather ----
// One phase per blockIdx.z (subpixel.h). Block (blockIdx.x, blockIdx.y) computes a kTileM x kTileN
// tile of phase z's output GEMM: rows are input pixels (n, i, j), ordered image-fastest (row
// m = (i * W + j) * batch + n, so that a block's rows share one pixel position and the same taps
// fall outside the image for all of them), columns are output channels; a row's output pixel is
// (n, 2 i + py, 2 j + px). The reduction runs over (tap, c), subpixel::kTileK at a time: the B
// tile is rows of the packed filter (subpixel::phase_start), the A tile is gathered from the input.
// With your warp tile the work left is a block object for multiply_staged_tiles:
//  1. Its tile: lab07::TileShape<kTileM, kTileN, subpixel::kTileK, 2, kThreads / 64, 8, kThreadN,
//     kMinBlocks>, kThreads = (kTileM / 8) * (kTileN / kThreadN): two warp rows, 8 x kThreadN
//     outputs per lane.
//  2. The phase mapping, once per thread: (py, px) from blockIdx.z, and for each float4 of A it
//     loads, the pixel (n, i, j) of its row (rows past the end get an i that fails every test).
//  3. The gather, load_next_tile(): step (tap, c0) reads channels c0 .. c0 + 7 of pixel
//     (i + di, j + dj) (subpixel::input_offset), zeros outside the image, as float4s; B is the
//     packed filter's rows (tap * C + c0 ..), zeros past the last column.
//  4. The steps: every tap of the phase (subpixel::taps(py) x subpixel::taps(px)) times C / kTileK
//     channel runs. (Faster: skip the taps that fall outside the image for every row of the block.)
//  5. The stores: acc through apply_epilogue to output pixel (n, 2 i + py, 2 j + px), four channels
//     at a time.
// The kernel then declares the two shared buffers, builds the block and runs the loop. kMinBlocks
// is the occupancy the launch asks for: declare the kernel __launch_bounds__(kThreads, kMinBlocks).
template <int kTileM, int kTileN, int kThreadN, int kMinBlocks>
struct PhaseBlock {
  static constexpr int kThreads = (kTileM / 8) * (kTileN / kThreadN);
  using Tile =
      lab07::TileShape<kTileM, kTileN, subpixel::kTileK, 2, kThreads / 64, 8, kThreadN, kMinBlocks>;
  static constexpr int BM = kTileM, BN = kTileN, BK = subpixel::kTileK;
  static constexpr int AV = BM * BK / 4 / kThreads, BV = BK * BN / 4 / kThreads;
  using ATile = float[BK][BM + lab07::kPadA];
  using BTile = float[BK][BN];

  const TconvArgs& args;
  ATile* a_tile;
  BTile* b_tile;
  int tid = threadIdx.x;
  LanePieces<Tile> lane;
  float4 a_staged[AV], b_staged[BV];
  float a_frag[2][Tile::TM], b_frag[2][Tile::TN];
  float acc[Tile::TM][Tile::TN] = {};
  // step 2: the phase and this thread's A rows
  int py, px, taps_y, taps_x, H, W, C, K, batch, col0;
  long long rows, row0;
  int my_n[AV], my_i[AV], my_j[AV];
  const float* b_phase;
  int ty = 0, tx = 0, c0 = 0;  // the next step

  __device__ PhaseBlock(const TconvArgs& a, ATile* at, BTile* bt)
      : args(a), a_tile(at), b_tile(bt) {
    const int z = blockIdx.z;
    py = subpixel::phase_row(z);
    px = subpixel::phase_col(z);
    taps_y = subpixel::taps(py);
    taps_x = subpixel::taps(px);
    H = a.shape.height;
    W = a.shape.width;
    C = a.shape.in_channels;
    K = a.shape.out_channels;
    batch = a.shape.batch;
    rows = static_cast<long long>(batch) * H * W;
    row0 = static_cast<long long>(blockIdx.x) * BM;
    col0 = blockIdx.y * BN;
    b_phase = a.filter + subpixel::phase_start(z, C, K);
#pragma unroll
    for (int r = 0; r < AV; ++r) {
      const long long m = row0 + (tid + r * kThreads) / (BK / 4);
      if (m < rows) {
        my_n[r] = static_cast<int>(m % batch);
        const int pos = static_cast<int>(m / batch);
        my_i[r] = pos / W;
        my_j[r] = pos % W;
      } else {
        my_n[r] = 0;
        my_i[r] = -1000000;  // fails every bounds test
        my_j[r] = 0;
      }
    }
  }

  __device__ int steps() const {
    return taps_y * taps_x * (C / BK);
  }

  // step 3: the gather
  __device__ void load_next_tile() {
    const int di = subpixel::input_offset(py, ty), dj = subpixel::input_offset(px, tx);
#pragma unroll
    for (int r = 0; r < AV; ++r) {
      const int k = (tid + r * kThreads) % (BK / 4) * 4;
      const int i = my_i[r] + di, j = my_j[r] + dj;
      a_staged[r] = make_float4(0.f, 0.f, 0.f, 0.f);
      if (i >= 0 && i < H && j >= 0 && j < W)
        a_staged[r] = *reinterpret_cast<const float4*>(
            args.input + ((static_cast<long long>(my_n[r]) * H + i) * W + j) * C + c0 + k);
    }
    const int brow0 = (ty * taps_x + tx) * C + c0;
#pragma unroll
    for (int r = 0; r < BV; ++r) {
      const int v = tid + r * kThreads;
      const int row = v / (BN / 4), col = col0 + v % (BN / 4) * 4;
      b_staged[r] = col < K ? *reinterpret_cast<const float4*>(
                                  b_phase + static_cast<long long>(brow0 + row) * K + col)
                            : make_float4(0.f, 0.f, 0.f, 0.f);
    }
    // step 4: the next (tap, channels)
    c0 += BK;
    if (c0 == C) {
      c0 = 0;
      if (++tx == taps_x) {
        tx = 0;
        ++ty;
      }
    }
  }

  // step 5: the stores
  __device__ void store() {
#pragma unroll
    for (int g = 0; g < Tile::TM / 4; ++g) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const long long m = row0 + lane.row + g * Tile::LANES_M * 4 + r;
        if (m >= rows) continue;
        const long long n = m % batch;
        const int pos = static_cast<int>(m / batch);
        const int y = 2 * (pos / W) + py, x = 2 * (pos % W) + px;
        float* out = args.output + ((n * 2 * H + y) * 2 * W + x) * K;
#pragma unroll
        for (int h = 0; h < Tile::TN / 4; ++h) {
          const int col = col0 + lane.col + h * Tile::LANES_N * 4;
          if (col >= K) continue;
          float4 v;
          v.x = apply_epilogue(args.epilogue, acc[4 * g + r][4 * h], col);
          v.y = apply_epilogue(args.epilogue, acc[4 * g + r][4 * h + 1], col + 1);
          v.z = apply_epilogue(args.epilogue, acc[4 * g + r][4 * h + 2], col + 2);
          v.w = apply_epilogue(args.epilogue, acc[4 * g + r][4 * h + 3], col + 3);
          *reinterpret_cast<float4*>(out + col) = v;
        }
      }
    }
  }
};

template <int kTileM, int kTileN, int kThreadN, int kMinBlocks>
__global__ void __launch_bounds__((kTileM / 8) * (kTileN / kThreadN), kMinBlocks)
    subpixel_tconv_kernel(TconvArgs args) {
  using Block = PhaseBlock<kTileM, kTileN, kThreadN, kMinBlocks>;
  __shared__ __align__(16) typename Block::ATile a_tile[2];
  __shared__ __align__(16) typename Block::BTile b_tile[2];
  Block block(args, a_tile, b_tile);
  multiply_staged_tiles<typename Block::Tile>(block, block.steps());
  block.store();
}

// The sub-pixel form for a few output channels (K <= subpixel::kMaxSmallK, the RGB layer), where a
// GEMM tile would be mostly padding and every input value feeds only K FMAs: reuse the loads
// instead. Grid-stride over items p = (n * H + i) * groups + g, groups = ceil(W / kSmallKPixels):
// one thread computes all K channels of the 2 x (2 kSmallKPixels) outputs (2 i + py, 2 j + px) of
// the input pixels j = 4 g .. 4 g + 3, all four phases. Output (2 i + py, 2 j + px) reads input (i
// + d, j + e) through filter (r, s) = (py + 1 - 2 d, px + 1 - 2 e) when both are in 0..4. Stage the
// filter in the dynamic shared memory first (25 C float4s: one per (r, s, c) holding the K output
// channels, zero-padded), unpacking args.filter, which is in the packed layout of subpixel.h.
__global__ void subpixel_small_k_kernel(TconvArgs args) {
  extern __shared__ float4 filt[];  // [(r * 5 + s) * C + c]: the K output channels, zero-padded
  const int H = args.shape.height, W = args.shape.width, C = args.shape.in_channels,
            K = args.shape.out_channels;
  for (int e = threadIdx.x; e < 25 * C; e += blockDim.x) filt[e] = make_float4(0.f, 0.f, 0.f, 0.f);
  __syncthreads();
  // Unpack: phase z's row (ty * taps_x + tx) * C + c, column k is filter[r(ty)][s(tx)][k][c].
  for (int z = 0; z < 4; ++z) {
    const int py = subpixel::phase_row(z), px = subpixel::phase_col(z);
    const int tys = subpixel::taps(py), txs = subpixel::taps(px);
    const float* packed = args.filter + subpixel::phase_start(z, C, K);
    for (int e = threadIdx.x; e < tys * txs * C; e += blockDim.x) {
      const int tap = e / C, c = e % C, ty = tap / txs, tx = tap % txs;
      const int r = subpixel::filter_index(py, ty), s = subpixel::filter_index(px, tx);
      float* slot = reinterpret_cast<float*>(&filt[(r * 5 + s) * C + c]);
      for (int k = 0; k < K; ++k) slot[k] = packed[static_cast<long long>(e) * K + k];
    }
  }
  __syncthreads();
  const int groups = (W + subpixel::kSmallKPixels - 1) / subpixel::kSmallKPixels;
  const long long items = static_cast<long long>(args.shape.batch) * H * groups;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < items;
       p += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int g = static_cast<int>(p % groups);
    const long long ni = p / groups;
    const int i = static_cast<int>(ni % H);
    const long long n = ni / H;
    for (int j = g * subpixel::kSmallKPixels; j < min(W, (g + 1) * subpixel::kSmallKPixels); ++j) {
      for (int py = 0; py < 2; ++py) {
        for (int px = 0; px < 2; ++px) {
          float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
          for (int d = -1; d <= 1; ++d) {
            const int r = py + 1 - 2 * d, ii = i + d;
            if (r < 0 || r > 4 || ii < 0 || ii >= H) continue;
            for (int e = -1; e <= 1; ++e) {
              const int s = px + 1 - 2 * e, jj = j + e;
              if (s < 0 || s > 4 || jj < 0 || jj >= W) continue;
              const float* x = args.input + ((n * H + ii) * W + jj) * C;
              const float4* w = filt + (r * 5 + s) * C;
              for (int c = 0; c < C; ++c) {
                const float v = x[c];
                sum.x += v * w[c].x;
                sum.y += v * w[c].y;
                sum.z += v * w[c].z;
                sum.w += v * w[c].w;
              }
            }
          }
          float* out = args.output + ((n * 2 * H + 2 * i + py) * 2 * W + 2 * j + px) * K;
          const float values[4] = {sum.x, sum.y, sum.z, sum.w};
          for (int k = 0; k < K; ++k) out[k] = apply_epilogue(args.epilogue, values[k], k);
        }
      }
    }
  }
}

}  // namespace
}  // namespace lab09

#include "labs/09_dcgan/launch.cuh"
