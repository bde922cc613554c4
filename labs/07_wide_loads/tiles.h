/// @file labs/07_wide_loads/tiles.h
/// @brief The tile shapes of lab 07's kernels, as one template parameter each.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__: best's plans and the kernels agree on k_slice_length

namespace lab07 {

/// A block tile of BM x BN outputs stepping BK along K, computed by WARPS_M x WARPS_N warps. Each
/// warp owns a (BM / WARPS_M) x (BN / WARPS_N) warp tile, and each of its 32 lanes a TM x TN patch
/// made of 4 x 4 pieces spread across the warp tile (so that a warp's 128-bit shared loads are
/// conflict-free). kMinBlocks is the number of blocks per SM the register budget is set for
/// (__launch_bounds__).
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int TM_, int TN_, int kMinBlocks_>
struct TileShape {
  static constexpr int BM = BM_;                  ///< rows of C per block
  static constexpr int BN = BN_;                  ///< columns of C per block
  static constexpr int BK = BK_;                  ///< depth of each tile along K
  static constexpr int WARPS_M = WARPS_M_;        ///< warps down the block tile
  static constexpr int WARPS_N = WARPS_N_;        ///< warps across the block tile
  static constexpr int TM = TM_;                  ///< rows of C per lane
  static constexpr int TN = TN_;                  ///< columns of C per lane
  static constexpr int kMinBlocks = kMinBlocks_;  ///< blocks per SM the register budget is set for
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;  ///< threads per block
  static constexpr int WM = BM / WARPS_M;                  ///< rows of a warp tile
  static constexpr int WN = BN / WARPS_N;                  ///< columns of a warp tile
  static constexpr int LANES_N = WN / TN;                  ///< lanes across a warp tile
  static constexpr int LANES_M = 32 / LANES_N;             ///< lanes down a warp tile
  static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warps must split the block tile");
  static_assert(WN % TN == 0 && 32 % LANES_N == 0 && LANES_M * TM == WM,
                "lanes must split the warp tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "patches are made of 4 x 4 pieces");
  static_assert((BM * BK / 4) % kThreads == 0 && (BK * BN / 4) % kThreads == 0,
                "tiles must split into float4s");
};

/// Small problems: 4 warps, 4 x 8 per lane, 16 deep (two tiles of 8 per barrier: a block of 4 warps
/// has little else to hide its loads behind).
using Tile64x64 = TileShape<64, 64, 16, 2, 2, 4, 8, 4>;
using Tile128x64 =
    TileShape<128, 64, 8, 2, 2, 8, 8, 2>;  ///< narrow problems: 4 warps, 8 x 8 per lane
/// Tile128x64 16 deep, for a C one tile wide: each block then reads its panel of A from DRAM, and a
/// tile of 8 is too little work to cover that trip.
using Tile128x64x16 = TileShape<128, 64, 16, 2, 2, 8, 8, 2>;
using Tile128x128 =
    TileShape<128, 128, 8, 2, 4, 8, 8, 2>;  ///< 8 warps, 8 x 8 per lane, 2 blocks per SM
using Tile128x256 =
    TileShape<128, 256, 8, 2, 4, 8, 16, 1>;  ///< 8 warps, 8 x 16 per lane, 1 block per SM
using Tile256x128 =
    TileShape<256, 128, 8, 4, 2, 16, 8, 1>;  ///< 8 warps, 16 x 8 per lane, 1 block per SM
/// Steps 1 and 2 of the lab (wide_loads_kernel, warp_tiles_kernel) keep lab 06's block: 128 x 128 x
/// 8, 256 threads, 8 x 8 outputs per thread, two blocks per SM.
using StepTile = Tile128x128;

/// The narrow kernel, for a C only a few columns wide: blocks of kNarrowWarps warps, each warp
/// computing kNarrowRows rows of C over a chunk of kCols columns (4, 8 or kNarrowMaxCols), its
/// lanes splitting K. Wider C takes several chunks.
inline constexpr int kNarrowWarps = 8;                    ///< warps per block of the narrow kernel
inline constexpr int kNarrowRows = 4;                     ///< rows of C per warp
inline constexpr int kNarrowMaxCols = 16;                 ///< the widest column chunk
inline constexpr int kNarrowThreads = kNarrowWarps * 32;  ///< threads per block

/// The narrow kernel's column chunk for a C of n columns: the narrowest of 4, 8 and kNarrowMaxCols
/// that covers n (wider C takes several chunks of kNarrowMaxCols).
constexpr int narrow_chunk(int n) {
  return n <= 4 ? 4 : n <= 8 ? 8 : kNarrowMaxCols;
}

/// K of each slice but the last when `best` splits K into `slices` (gridDim.z of a split launch): a
/// multiple of 8, so that every slice starts 16-byte aligned where K's first column is.
__host__ __device__ constexpr int k_slice_length(int k, int slices) {
  return ((k + slices - 1) / slices + 7) / 8 * 8;
}

/// Shared memory of the cp.async kernel: kStages copies of the transposed A tile and the B tile.
template <class Tile, int kStages>
constexpr int async_shared_bytes() {
  return kStages * (Tile::BK * (Tile::BM + 4) + Tile::BK * Tile::BN) *
         static_cast<int>(sizeof(float));
}

}  // namespace lab07
