// Lab 09: your kernels. Each TODO kernel below compiles and launches but writes nothing: the driver
// poisons every output first, so it reports "not implemented yet" until you fill it in.
//
// The core, in three steps, each tested and timed before the next (the handout's "The core"):
//  1. naive_tconv_kernel (variant naive): the transposed convolution's sum written directly.
//  2. branch_free_tconv_kernel (variant branch_free): the same sum, the loop bounds skipping the
//     inserted zeros instead of a branch. It reuses step 1's helpers.
//  3. lower_input_kernel (variants gemm, gemm_batched, per_layer, fused): the lowered input I',
//     which the given generator multiplies by W' with lab 07's GEMM.
// The optional challenge, below its marker: the sub-pixel form (variant subpixel) on your lab 07
// warp tile, with its own tests and points.
//
// Read common/dcgan_model.h for the exact sum of the transposed convolution and lab.h for what each
// function must do. Apply `args.epilogue` to every value a convolution writes (apply_epilogue in
// epilogue.cuh): that is where bias, batch norm and ReLU go. The grids are given (launch.cuh):
// blocks of 256 threads, at most 2^24 of them, so each kernel is a grid-stride loop over its
// elements, with 64-bit indices (the I' of a large batch has more than 2^31 elements).
// Tensors are row-major: input pixel (n, i, j) starts at ((n H + i) W + j) C, output value
// (n, y, x, k) is element ((n 2H + y) 2W + x) K + k, and filter tap (r, s) of output channel k
// starts at ((r 5 + s) K + k) C; the C values of a pixel and of a tap are consecutive.
#include "labs/09_dcgan/epilogue.cuh"
#include "labs/09_dcgan/lab.h"

namespace lab09 {
namespace {

using cudalabs::dcgan::TconvShape;

// Step 1 ([DCGAN-SHPC] §2.2). One thread per output value out[n][y][x][k], grid-stride over
// batch * 2H * 2W * K values (k the fastest index, so that neighbouring threads write neighbouring
// addresses). For each of the 25 taps (r, s): the input row is (y + 1 - r) / 2 when y + 1 - r is
// even and the row is inside the input, likewise the column with x + 1 - s; sum input * filter
// over the C channels of every such tap, then apply the epilogue with channel k. Write two helpers
// above the kernel, for step 2 to reuse: one that splits the flat output index into (n, y, x, k),
// and one that returns the dot product of C consecutive input values and C consecutive filter
// values.
struct OutputIndex {
  long long n;
  int y, x, k;
};

__device__ __forceinline__ OutputIndex split_output_index(const TconvShape& s, long long idx) {
  OutputIndex o;
  o.k = static_cast<int>(idx % s.out_channels);
  idx /= s.out_channels;
  o.x = static_cast<int>(idx % (2 * s.width));
  idx /= 2 * s.width;
  o.y = static_cast<int>(idx % (2 * s.height));
  o.n = idx / (2 * s.height);
  return o;
}

__device__ __forceinline__ float dot_channels(const float* a, const float* b, int count) {
  float sum = 0.0f;
  for (int c = 0; c < count; ++c) sum = fmaf(a[c], b[c], sum);
  return sum;
}

// batch * 2H * 2W * K, in 64 bits (TconvShape's own count is a host function).
__device__ __forceinline__ long long output_count(const TconvShape& s) {
  return static_cast<long long>(s.batch) * (2 * s.height) * (2 * s.width) * s.out_channels;
}

// The input pixel (n, i, j) and the filter tap (r, s) of channel k.
__device__ __forceinline__ const float* input_pixel(const TconvArgs& args, long long n, int i,
                                                    int j) {
  const TconvShape& s = args.shape;
  return args.input + ((n * s.height + i) * s.width + j) * s.in_channels;
}

__device__ __forceinline__ const float* filter_tap(const TconvArgs& args, int r, int s, int k) {
  const TconvShape& sh = args.shape;
  return args.filter + (static_cast<long long>(r * 5 + s) * sh.out_channels + k) * sh.in_channels;
}

__global__ void naive_tconv_kernel(TconvArgs args) {
  const TconvShape& s = args.shape;
  const long long total = output_count(s);
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const OutputIndex o = split_output_index(s, idx);
    float sum = 0.0f;
    for (int r = 0; r < 5; ++r) {
      const int dy = o.y + 1 - r;
      if (dy < 0 || (dy & 1) || dy / 2 >= s.height) continue;
      for (int t = 0; t < 5; ++t) {
        const int dx = o.x + 1 - t;
        if (dx < 0 || (dx & 1) || dx / 2 >= s.width) continue;
        sum += dot_channels(input_pixel(args, o.n, dy / 2, dx / 2), filter_tap(args, r, t, o.k),
                            s.in_channels);
      }
    }
    args.output[idx] = apply_epilogue(args.epilogue, sum, o.k);
  }
}

// Step 2 ([DCGAN-SHPC] §2.2.1). The same sum without the parity test: r runs only over the taps
// with y + 1 - r even and 0 <= (y + 1 - r) / 2 < H, that is from the first such r to the last in
// steps of 2 (likewise s with x + 1 - s and W). Write a helper for the first and the last tap of an
// axis, from those two bounds and 0 <= r <= 4, and reuse step 1's helpers: no tap visited lands on
// a zero, and no test remains inside the tap loops.
struct TapRange {
  int first, last;  // r from first to last in steps of 2 (first <= last always)
};

// The taps r in 0..4 with out + 1 - r even and 0 <= (out + 1 - r) / 2 < in_size.
__device__ __forceinline__ TapRange tap_range(int out, int in_size) {
  const int lo = max(0, out + 3 - 2 * in_size);
  const int hi = min(4, out + 1);
  return TapRange{lo + ((lo ^ (out + 1)) & 1), hi};
}

__global__ void branch_free_tconv_kernel(TconvArgs args) {
  const TconvShape& s = args.shape;
  const long long total = output_count(s);
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const OutputIndex o = split_output_index(s, idx);
    const TapRange rows = tap_range(o.y, s.height);
    const TapRange cols = tap_range(o.x, s.width);
    float sum = 0.0f;
    for (int r = rows.first; r <= rows.last; r += 2) {
      const int i = (o.y + 1 - r) >> 1;
      for (int t = cols.first; t <= cols.last; t += 2) {
        const int j = (o.x + 1 - t) >> 1;
        sum +=
            dot_channels(input_pixel(args, o.n, i, j), filter_tap(args, r, t, o.k), s.in_channels);
      }
    }
    args.output[idx] = apply_epilogue(args.epilogue, sum, o.k);
  }
}

// Step 3 ([DCGAN-SHPC] eqs. 11-12). I', batch * 2H * 2W rows of 25 C columns, one thread per
// element, grid-stride: element (row d, column (r * 5 + s) * C + c) with d = (n, y, x) (x fastest)
// is J[y + r][x + s][c] of image n, J being the input with a zero between neighbouring pixels and 3
// zero rows and columns before it: the input pixel ((y + r - 3) / 2, (x + s - 3) / 2) when both
// y + r - 3 and x + s - 3 are even and inside the input, 0 otherwise. Write every element, the
// zeros too (the buffer holds an earlier chunk's values).
__global__ void lower_input_kernel(TconvShape shape, const float* input, float* lowered) {
  const int c_count = shape.in_channels;
  const long long columns = 25LL * c_count;
  const long long total =
      static_cast<long long>(shape.batch) * (2 * shape.height) * (2 * shape.width) * columns;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long d = idx / columns;
    const int col = static_cast<int>(idx - d * columns);
    const int c = col % c_count;
    const int tap = col / c_count;
    const int r = tap / 5, t = tap % 5;
    const int x = static_cast<int>(d % (2 * shape.width));
    d /= 2 * shape.width;
    const int y = static_cast<int>(d % (2 * shape.height));
    const long long n = d / (2 * shape.height);
    const int py = y + r - 3, px = x + t - 3;
    float value = 0.0f;
    if (py >= 0 && !(py & 1) && py / 2 < shape.height && px >= 0 && !(px & 1) &&
        px / 2 < shape.width) {
      value = input[((n * shape.height + py / 2) * shape.width + px / 2) * c_count + c];
    }
    lowered[idx] = value;
  }
}

}  // namespace
}  // namespace lab09

// ---- The optional challenge: the sub-pixel transposed convolution ----
// Variant subpixel (tconv_subpixel in lab.h), with its own tests and points. Each output phase
// (y mod 2, x mod 2) is an ordinary convolution with 2 or 3 taps per axis (subpixel.h), computed
// without visiting an inserted zero: the wide layers as implicit GEMMs on your lab 07 warp tile
// (subpixel_tconv_kernel), the RGB layer by patches of outputs (subpixel_small_k_kernel).
// Test it with ctest --test-dir build -R 'lab09\.student\..*subpixel' and time it with
// make lab N=09 ARGS="--variant fused --variant subpixel".
#include "labs/07_wide_loads/lab.h"
#include "labs/07_wide_loads/register_patch.cuh"
#include "labs/07_wide_loads/tiles.h"
#include "labs/09_dcgan/subpixel.h"

namespace lab09 {
namespace {

// ---- Your warp tile, from lab 07 ----
// The sub-pixel GEMM below is lab 07's tile loop with another A. Replace these three stubs: copy
// the helpers from your lab 07 kernels if you wrote them to this contract (lab 07's steps 2 and 3,
// and its challenge A), or write them from it. outer_product, the FFMAs of one step, is given as
// in lab 07 (lab07::outer_product, register_patch.cuh). Tile is a lab07::TileShape
// (labs/07_wide_loads/tiles.h), and kPadA is lab07::kPadA (labs/07_wide_loads/lab.h).
//  - LanePieces<Tile>{row, col}: this lane's first 4 x 4 piece in the block tile (warp tile at
//    (w / WARPS_N) * WM, (w % WARPS_N) * WN; lane at (l / LANES_N) * 4, (l % LANES_N) * 4); the
//    other pieces follow every LANES_M * 4 rows and LANES_N * 4 columns.
//  - load_fragments<Tile>(a_row, b_row, lane, a_frag, b_frag): step k's TM values of A (from row k
//    of the transposed A tile) and TN of B, one LDS.128 per piece.
//  - multiply_staged_tiles<Tile>(block, tiles): the register-staged, double-buffered tile loop with
//    the fragment prefetch, over a `block` object that holds a_tile[2][BK][BM + kPadA] and
//    b_tile[2][BK][BN] (shared), a_staged[] and b_staged[] (float4s: thread tid holds float4s tid,
//    tid + kThreads, ... of each tile), lane, a_frag[2][TM], b_frag[2][TN], acc[TM][TN], tid, and
//    load_next_tile(), which fills a_staged and b_staged with the next tile along K.
template <class Tile>
struct LanePieces {
  int row = 0, col = 0;  // TODO(lab09): your lab 07 lane mapping
};

template <class Tile>
__device__ __forceinline__ void load_fragments(const float* a_row, const float* b_row,
                                               const LanePieces<Tile>& lane,
                                               float (&a_frag)[Tile::TM],
                                               float (&b_frag)[Tile::TN]) {
  // TODO(lab09): your lab 07 fragment loads.
  (void)a_row;
  (void)b_row;
  (void)lane;
  (void)a_frag;
  (void)b_frag;
}

template <class Tile, class Block>
__device__ __forceinline__ void multiply_staged_tiles(Block& block, int tiles) {
  // TODO(lab09): your lab 07 tile loop (its FFMAs: lab07::outer_product).
  (void)block;
  (void)tiles;
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
__global__ void subpixel_tconv_kernel(TconvArgs args) {
  // TODO(lab09): challenge, the sub-pixel implicit GEMM on your warp tile.
  (void)args;
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
  // TODO(lab09): challenge, the sub-pixel kernel for the RGB layer.
  (void)args;
}

}  // namespace
}  // namespace lab09

#include "labs/09_dcgan/launch.cuh"
