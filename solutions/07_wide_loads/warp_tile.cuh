// Lab 07's warp tile, the part of its SGEMM that any tile-staged product can reuse: step 2's lane
// pieces and fragment loads (lane_pieces.cuh), and the register-staged tile loop of the
// challenge's kernels (step 3 written once per shared buffer). The register outer product and the
// stores are given (register_patch.cuh). Lab 07's challenge kernels include it, and so does lab
// 09's sub-pixel convolution, whose A tile is gathered from an image instead of read from a
// matrix.
#pragma once

#include "labs/07_wide_loads/register_patch.cuh"
#include "labs/07_wide_loads/tiles.h"
#include "lane_pieces.cuh"

#include <concepts>

namespace lab07 {

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
