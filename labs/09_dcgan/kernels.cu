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
  // TODO(lab09): the naive transposed convolution ([DCGAN-SHPC] §2.2).
  (void)args;
}

// The same sum without the parity branch ([DCGAN-SHPC] §2.2.1): start r at the first value with
// y + 1 - r even and step by 2 (likewise s), so every visited tap lands on a real input pixel.
__global__ void branch_free_tconv_kernel(TconvArgs args) {
  // TODO(lab09): the branch-free transposed convolution.
  (void)args;
}

// I' of [DCGAN-SHPC] eqs. 11-12: element (row d, column (r * 5 + s) * C + c) with d = (n, y, x) is
// J[y + r][x + s][c] of image n: the input pixel ((y + r - 3) / 2, (x + s - 3) / 2) when both
// y + r - 3 and x + s - 3 are even and inside the input, 0 otherwise. One thread per element.
__global__ void lower_input_kernel(cudalabs::dcgan::TconvShape shape, const float* input,
                                   float* lowered) {
  // TODO(lab09): build the lowered input.
  (void)shape;
  (void)input;
  (void)lowered;
}

// ---- Your warp tile, from lab 07 ----
// The sub-pixel GEMM below is lab 07's step 3 with another A: copy the four helpers of your lab 07
// kernels.cu here (they are the same code: only load_next_tile differs), replacing these stubs, or
// write them from this contract. Tile is a lab07::TileShape (labs/07_wide_loads/tiles.h), and kPadA
// is lab07::kPadA (labs/07_wide_loads/lab.h).
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

template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&a_frag)[TM], const float (&b_frag)[TN],
                                              float (&acc)[TM][TN]) {
  // TODO(lab09): your lab 07 FFMAs.
  (void)a_frag;
  (void)b_frag;
  (void)acc;
}

template <class Tile, class Block>
__device__ __forceinline__ void multiply_staged_tiles(Block& block, int tiles) {
  // TODO(lab09): your lab 07 tile loop.
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
  // TODO(lab09): the sub-pixel implicit GEMM on your warp tile.
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
  // TODO(lab09): the sub-pixel kernel for the RGB layer.
  (void)args;
}

}  // namespace
}  // namespace lab09

#include "labs/09_dcgan/launch.cuh"
