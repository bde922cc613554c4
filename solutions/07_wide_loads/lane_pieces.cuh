// Lab 07 solution, step 2's helpers: where each lane's 4 x 4 pieces sit in the warp tile, the
// conflict-free 128-bit fragment loads from the shared tiles, and the patch's stores at the lane's
// place (register_patch.cuh's store_patch). Steps 2 to 4 use them, and so do the challenge's
// kernels and lab 09's sub-pixel convolution (through warp_tile.cuh).
#pragma once

#include "labs/07_wide_loads/register_patch.cuh"
#include "labs/07_wide_loads/tiles.h"

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

// C = alpha * acc + beta * C for this lane's pieces (register_patch.cuh's store_patch with the
// lane's place and piece strides): 128-bit stores where C allows them when kVectorStores.
template <class Tile, bool kVectorStores>
__device__ __forceinline__ void store_lane_patch(const cudalabs::GemmArgs& args, int row0, int col0,
                                                 const LanePieces<Tile>& lane,
                                                 const float (&acc)[Tile::TM][Tile::TN]) {
  store_patch<Tile::TM, Tile::TN, Tile::LANES_M * 4, Tile::LANES_N * 4, kVectorStores>(
      args, row0 + lane.row, col0 + lane.col, acc);
}

}  // namespace lab07
