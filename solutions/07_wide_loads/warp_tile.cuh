// Lab 07's warp tile, the part of its SGEMM that any tile-staged product can reuse: where each
// lane's 4 x 4 pieces sit, the conflict-free 128-bit fragment loads from the shared tiles, the
// register outer product, and the register-staged tile loop. Lab 07's kernels include it, and so
// does lab 09's sub-pixel convolution, whose A tile is gathered from an image instead of read from
// a matrix.
#pragma once

#include "labs/07_wide_loads/tiles.h"

#include <concepts>

namespace lab07 {

// One lane's view of the warp tile: its first 4 x 4 piece; the others follow every LANES_M * 4 rows
// and LANES_N * 4 columns.
template <class Tile>
struct LanePieces {
  int row, col;
  __device__ LanePieces() {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    row = (warp / Tile::WARPS_N) * Tile::WM + (lane / Tile::LANES_N) * 4;
    col = (warp % Tile::WARPS_N) * Tile::WN + (lane % Tile::LANES_N) * 4;
  }
};

// Copies N / 4 float4s into `to`, the p-th from `from + p * stride` (a lane's pieces of one
// fragment).
template <int kStride, int N>
__device__ __forceinline__ void load_pieces(const float* from, float (&to)[N]) {
#pragma unroll
  for (int p = 0; p < N / 4; ++p) {
    const float4 v = *reinterpret_cast<const float4*>(from + p * kStride);
    to[4 * p + 0] = v.x;
    to[4 * p + 1] = v.y;
    to[4 * p + 2] = v.z;
    to[4 * p + 3] = v.w;
  }
}

// Loads step k's fragments (TM values of A from the transposed tile, TN of B) into register slot
// `slot` with 128-bit shared loads. `a_row` and `b_row` point at row k of the tiles.
template <class Tile>
__device__ __forceinline__ void load_fragments(const float* a_row, const float* b_row,
                                               const LanePieces<Tile>& lane,
                                               float (&a_frag)[Tile::TM],
                                               float (&b_frag)[Tile::TN]) {
  load_pieces<Tile::LANES_M * 4>(a_row + lane.row, a_frag);
  load_pieces<Tile::LANES_N * 4>(b_row + lane.col, b_frag);
}

// The TM x TN FFMAs of one step. The inner loop runs over the longer fragment: measured on the
// H100, that order is 2-5 % faster for both 8 x 16 and 16 x 8 patches (it lets ptxas keep the
// shorter fragment's operand in the reuse cache across a longer run of FFMAs).
template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&a_frag)[TM], const float (&b_frag)[TN],
                                              float (&acc)[TM][TN]) {
  if constexpr (TN >= TM) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
  } else {
#pragma unroll
    for (int j = 0; j < TN; ++j)
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
  }
}

// What the register-staged tile loop below asks of a block that stages its own tiles, checked by
// the compiler wherever the loop is used. Where A comes from is the block's business: lab 07 reads
// a matrix, lab 09 gathers from an image.
template <class Block, class Tile>
concept StagedTileBlock = requires(Block& block) {
  // Two shared buffers of each tile, A transposed: a_tile[buffer][k][m], b_tile[buffer][k][n].
  { block.a_tile[1][Tile::BK - 1][Tile::BM - 1] } -> std::same_as<float&>;
  { block.b_tile[1][Tile::BK - 1][Tile::BN - 1] } -> std::same_as<float&>;
  // The next tile's float4s in registers: thread tid holds float4s tid, tid + kThreads, ... of each
  // tile, A's as (row v / (BK / 4), columns v % (BK / 4) * 4 ..).
  { block.tid } -> std::convertible_to<int>;
  { block.a_staged[Tile::BM * Tile::BK / 4 / Tile::kThreads - 1] } -> std::same_as<float4&>;
  { block.b_staged[Tile::BK * Tile::BN / 4 / Tile::kThreads - 1] } -> std::same_as<float4&>;
  // The lane's place in the warp tile, two register slots of fragments, the accumulators.
  { block.lane } -> std::convertible_to<const LanePieces<Tile>&>;
  { block.a_frag[1] } -> std::same_as<float(&)[Tile::TM]>;
  { block.b_frag[1] } -> std::same_as<float(&)[Tile::TN]>;
  { block.acc } -> std::same_as<float(&)[Tile::TM][Tile::TN]>;
  // Loads the next tile along K from global memory into a_staged and b_staged.
  block.load_next_tile();
};

// Registers -> shared buffer kBuffer: A transposed by four scalar stores (the row padding keeps a
// warp's stores on 32 different banks), B by one 128-bit store.
template <class Tile, int kBuffer, StagedTileBlock<Tile> Block>
__device__ __forceinline__ void store_staged_tile(Block& block) {
  constexpr int kAVectors = Tile::BM * Tile::BK / 4 / Tile::kThreads;
  constexpr int kBVectors = Tile::BK * Tile::BN / 4 / Tile::kThreads;
#pragma unroll
  for (int r = 0; r < kAVectors; ++r) {
    const int v = block.tid + r * Tile::kThreads;
    const int m = v / (Tile::BK / 4), k = v % (Tile::BK / 4) * 4;
    block.a_tile[kBuffer][k + 0][m] = block.a_staged[r].x;
    block.a_tile[kBuffer][k + 1][m] = block.a_staged[r].y;
    block.a_tile[kBuffer][k + 2][m] = block.a_staged[r].z;
    block.a_tile[kBuffer][k + 3][m] = block.a_staged[r].w;
  }
#pragma unroll
  for (int r = 0; r < kBVectors; ++r) {
    const int v = block.tid + r * Tile::kThreads;
    *reinterpret_cast<float4*>(&block.b_tile[kBuffer][v / (Tile::BN / 4)][v % (Tile::BN / 4) * 4]) =
        block.b_staged[r];
  }
}

// Computes the tile in buffer kBuffer (its step-0 fragments are already in slot 0). With kHasNext,
// the next tile is loaded into registers first, stored into the other buffer after the last step's
// fragments were read, and its step-0 fragments prefetched. Written per buffer (kBuffer a template
// argument), so every shared address is a base plus a constant and the loop has no buffer
// arithmetic. [walkthrough]
template <class Tile, int kBuffer, bool kHasNext, StagedTileBlock<Tile> Block>
__device__ __forceinline__ void multiply_staged_tile(Block& block) {
  if constexpr (kHasNext) block.load_next_tile();  // global loads in flight during the FFMAs below
#pragma unroll
  for (int k = 0; k < Tile::BK; ++k) {
    const int slot = k & 1;
    if (k + 1 < Tile::BK) {
      load_fragments<Tile>(block.a_tile[kBuffer][k + 1], block.b_tile[kBuffer][k + 1], block.lane,
                           block.a_frag[slot ^ 1], block.b_frag[slot ^ 1]);
    } else if constexpr (kHasNext) {
      // The other buffer was last read before the previous barrier: refill it, and one barrier
      // makes it visible to everyone.
      store_staged_tile<Tile, kBuffer ^ 1>(block);
      __syncthreads();
      load_fragments<Tile>(block.a_tile[kBuffer ^ 1][0], block.b_tile[kBuffer ^ 1][0], block.lane,
                           block.a_frag[slot ^ 1], block.b_frag[slot ^ 1]);
    }
    outer_product(block.a_frag[slot], block.b_frag[slot], block.acc);
  }
}
// [walkthrough]

// All `tiles` (>= 1) tiles into block.acc: the first staged into buffer 0, then pairs (buffer 0,
// then buffer 1) while both have a successor, then the last one or two.
template <class Tile, StagedTileBlock<Tile> Block>
__device__ __forceinline__ void multiply_staged_tiles(Block& block, int tiles) {
  static_assert(Tile::BK % 2 == 0, "the fragment slots alternate, so BK must be even");
  block.load_next_tile();
  store_staged_tile<Tile, 0>(block);
  __syncthreads();
  load_fragments<Tile>(block.a_tile[0][0], block.b_tile[0][0], block.lane, block.a_frag[0],
                       block.b_frag[0]);
  int t = 0;
  for (; t + 2 < tiles; t += 2) {
    multiply_staged_tile<Tile, 0, true>(block);
    multiply_staged_tile<Tile, 1, true>(block);
  }
  if (t + 1 < tiles) {
    multiply_staged_tile<Tile, 0, true>(block);
    multiply_staged_tile<Tile, 1, false>(block);
  } else {
    multiply_staged_tile<Tile, 0, false>(block);
  }
}

}  // namespace lab07
