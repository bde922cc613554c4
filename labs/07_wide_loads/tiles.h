/// @file labs/07_wide_loads/tiles.h
/// @brief Lab 07's tiles, each written once: the tile shapes (one template parameter each), and
/// the typed list of the kernels `best` chooses from (BestTiles), from which the variant table,
/// the planner's table (best_plan.cpp), the launch dispatch and the descriptions (launch.cuh)
/// all follow.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__: best's plans and the kernels agree on k_slice_length

#include <stdexcept>
#include <string>
#include <type_traits>

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
/// Small problems whose C is a few tiles of 64 x 64 (cuBLAS runs 32 x 32 tiles of 2 warps there):
/// 2 warps, 4 x 4 per lane, 8 blocks an SM, so that the blocks' waits overlap.
using Tile32x32 = TileShape<32, 32, 16, 1, 2, 4, 4, 8>;
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
/// The core steps of the lab (steps 1 to 3: wide_loads_kernel, warp_tiles_kernel,
/// prefetch_kernel) keep lab 06's block: 128 x 128 x 8, 256 threads, 8 x 8 outputs per thread,
/// two blocks per SM.
using StepTile = Tile128x128;
/// Step 4, the cp.async kernel: the 128 x 256 tile, kAsyncStages stages deep.
using AsyncTile = Tile128x256;
/// Stages of the cp.async kernel.
inline constexpr int kAsyncStages = 3;

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

/// The few-rows kernel (few_rows.cuh, given code `best` runs for a C of few rows and a long K):
/// blocks of kFewRowsWarps warps, each block kFewRowsCols columns of C (two a lane) by a group of
/// rows (4, 8 or 16: few_rows_group), B and A staged kFewRowsStageK values of K at a time through
/// kFewRowsStages buffers that cp.async fills, the warps sharing out each stage's values of K.
inline constexpr int kFewRowsMaxRows = 64;  ///< C of at most this many rows may take it
inline constexpr int kFewRowsWarps = 8;     ///< warps per block of the few-rows kernel
inline constexpr int kFewRowsThreads = kFewRowsWarps * 32;  ///< threads per block
inline constexpr int kFewRowsCols = 2 * 32;                 ///< columns of C per block: 2 a lane
inline constexpr int kFewRowsStageK = kFewRowsWarps * 4;    ///< values of K a stage: 4 a warp
/// Stages of shared memory: three in flight while the block multiplies the fourth.
inline constexpr int kFewRowsStages = 4;
/// Blocks of `rows` rows an SM holds at once, which the kernel's __launch_bounds__ asks for: three
/// (a third of the register file each, 120 KiB of shared memory on Hopper) where that spills
/// nothing, two for 16 rows, whose 32 sums a thread need more of it.
__host__ __device__ constexpr int few_rows_blocks_per_sm(int rows) {
  return rows < 16 ? 3 : 2;
}

/// Shared memory of the few-rows kernel for groups of `rows` rows, floats: its stages of B and A,
/// or the warps' partial sums that take their place at the end, whichever is larger (at most 40
/// KiB: no kernel attribute needed).
__host__ __device__ constexpr int few_rows_shared_floats(int rows) {
  const int stages = kFewRowsStages * (kFewRowsStageK * kFewRowsCols + rows * kFewRowsStageK);
  const int partials = kFewRowsWarps * rows * kFewRowsCols;
  return stages > partials ? stages : partials;
}

/// The few-rows kernel's rows per block for a C of m rows: 4, 8 or 16, the fewest that cover m,
/// else 16 (and ceil(m / 16) groups of rows on gridDim.y).
constexpr int few_rows_group(int m) {
  return m <= 4 ? 4 : m <= 8 ? 8 : 16;
}

/// The short-K kernel (short_k.cuh, given code `best` runs for a K of at most kShortKMaxK): blocks
/// of kShortKThreads threads, each a kShortKRows x kShortKCols tile of C (8 rows a warp, 4
/// columns a lane 32 apart), K staged kShortKChunk values at a time in two shared buffers.
inline constexpr int kShortKRows = 64;        ///< rows of C a block computes
inline constexpr int kShortKCols = 128;       ///< columns of C a block computes
inline constexpr int kShortKChunk = 32;       ///< values of K a shared buffer holds
inline constexpr int kShortKThreads = 256;    ///< threads per block of the short-K kernel
inline constexpr int kShortKBlocksPerSm = 4;  ///< blocks an SM holds (its __launch_bounds__)
/// A row of the short-K kernel's transposed chunk of A, floats: 4 of padding spread the transposing
/// copies over 8 banks instead of 1.
inline constexpr int kShortKARowFloats = kShortKRows + 4;
/// Dynamic shared memory of the short-K kernel: two buffers, each a chunk of A and a chunk of B.
inline constexpr int kShortKSharedBytes =
    2 * kShortKChunk * (kShortKARowFloats + kShortKCols) * static_cast<int>(sizeof(float));
/// The most K `best` gives the short-K kernel: past it the block-tile kernels' pipelines have K
/// enough to hide their fill (cuBLAS ran 0.42-0.86 of this kernel's time at K 96-160 on an H200).
inline constexpr int kShortKMaxK = 128;

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

// ---- The kernels `best` chooses from (the lab's optional challenge writes them) ----

/// A kernel of `best` built on a block tile: wide_gemm_kernel<Shape, ...>. What the planner needs
/// of it follows from the shape: its tile, its warps and the blocks an SM holds at once (the
/// __launch_bounds__ budget).
template <class Shape_>
struct BlockTileKernel {
  using Shape = Shape_;                                   ///< the kernel's TileShape
  static constexpr bool kNarrow = false;                  ///< not the narrow kernel
  static constexpr int BM = Shape::BM;                    ///< rows of C per block
  static constexpr int BN = Shape::BN;                    ///< columns of C per block
  static constexpr int BK = Shape::BK;                    ///< depth of each tile along K
  static constexpr int kWarps = Shape::kThreads / 32;     ///< warps per block
  static constexpr int kBlocksPerSm = Shape::kMinBlocks;  ///< blocks an SM holds at once
};

// One SM's speed on each tile (kSmGflops, GFLOP/s): each wide_* variant at 8192^3 on the H100 (132
// SMs, 15.5 waves of the big tiles: 97 % of the last wave busy), divided by 132 and by that 0.97
// (docs/data/history/lab07_v4-before-shapes_variants_nvidia-h100-80gb-hbm3.txt). The two tiles 16
// deep are scaled from their 8-deep forms by the two's times at 4096^3
// (docs/data/history/lab07_v7-deeper-tiles_nvidia-h100-80gb-hbm3.txt). Only their ratios matter
// for the choice, and those hold on other GPUs of the same kind of SM.
// The fixed cost of a launch (kFixedUs, what a launch costs beyond its rounds) is fitted on the
// H200, with best_plan.cpp's costs of a round's start and store and the short-K kernel's, to every
// plan lab07_plans timed in four sessions (225 timings of 191 shapes), those within 1.5 times each
// shape's fastest: the model's mean |log error| on those 1,639 times 0.259 -> 0.128, the plan
// picked 1.047 -> 1.036 of the fastest plan's time; fitted to either half of the shapes, on the
// other half 0.27 -> 0.13, and the picks 1.040 -> 1.033 and 1.053 -> 1.047; at 40 shapes drawn
// after it, 0.234 -> 0.138 and 1.054 -> 1.042 (docs/data/history/lab07_plan_fit_s28_nvidia-h200/).
// It had been fitted to single launches on the H100, the host's time included (25 us for the tiles
// of one block an SM), so at a short K every tile was predicted to take up to twice its time, the
// large tiles the most; a launch's start is now mostly its rounds' starts.
// The scalar path's rate (kScalarRate): each tile's speed when A or B is off 16-byte alignment
// (four scalar loads a float4) over its speed aligned, the mean of three pairs timed in one run on
// the H200: 6938 x 544 x 911 (A off) and 6938 x 544 x 912 with ldb = 913 (B off) against 6938 x 544
// x 912, and 4096 x 4096 x 4095 against 4096^3
// (docs/data/history/lab07_scalar_rates_nvidia-h200.txt). Tiles of 128 threads that load two
// float4s of A a tile lose the most. The fit above, free to move them too, set some near 1 and
// contradicted that direct measurement, so they stay measured.

/// `wide_256x128`.
struct Wide256x128 : BlockTileKernel<Tile256x128> {
  static constexpr const char* kName = "wide_256x128";                            ///< variant
  static constexpr const char* kSummary = "256x128x8, 8 warps, 16x8 per thread";  ///< one line
  static constexpr double kSmGflops = 412.0;    ///< one full SM's measured speed (above)
  static constexpr double kFixedUs = 1.4;       ///< a launch's fixed cost (above)
  static constexpr double kScalarRate = 0.908;  ///< its speed on the scalar path (above)
};
/// `wide_128x256`.
struct Wide128x256 : BlockTileKernel<Tile128x256> {
  static constexpr const char* kName = "wide_128x256";                            ///< variant
  static constexpr const char* kSummary = "128x256x8, 8 warps, 8x16 per thread";  ///< one line
  static constexpr double kSmGflops = 391.0;    ///< one full SM's measured speed (above)
  static constexpr double kFixedUs = 0.5;       ///< a launch's fixed cost (above)
  static constexpr double kScalarRate = 0.930;  ///< its speed on the scalar path (above)
};
/// `wide_128x128`.
struct Wide128x128 : BlockTileKernel<Tile128x128> {
  static constexpr const char* kName = "wide_128x128";                           ///< variant
  static constexpr const char* kSummary = "128x128x8, 8 warps, 8x8 per thread";  ///< one line
  static constexpr double kSmGflops = 364.0;    ///< one full SM's measured speed (above)
  static constexpr double kFixedUs = 0.6;       ///< a launch's fixed cost (above)
  static constexpr double kScalarRate = 0.961;  ///< its speed on the scalar path (above)
};
/// `wide_128x64`.
struct Wide128x64 : BlockTileKernel<Tile128x64> {
  static constexpr const char* kName = "wide_128x64";                           ///< variant
  static constexpr const char* kSummary = "128x64x8, 4 warps, 8x8 per thread";  ///< one line
  static constexpr double kSmGflops = 380.0;    ///< one full SM's measured speed (above)
  static constexpr double kFixedUs = 0.0;       ///< a launch's fixed cost (above)
  static constexpr double kScalarRate = 0.758;  ///< its speed on the scalar path (above)
};
/// `wide_128x64x16`.
struct Wide128x64x16 : BlockTileKernel<Tile128x64x16> {
  static constexpr const char* kName = "wide_128x64x16";  ///< variant
  /// one line
  static constexpr const char* kSummary = "128x64x16, 4 warps, 8x8 per thread: for C one tile wide";
  static constexpr double kSmGflops = 364.0;    ///< one full SM's measured speed (above)
  static constexpr double kFixedUs = 1.7;       ///< a launch's fixed cost (above)
  static constexpr double kScalarRate = 0.917;  ///< its speed on the scalar path (above)
};
/// `wide_64x64`.
struct Wide64x64 : BlockTileKernel<Tile64x64> {
  static constexpr const char* kName = "wide_64x64";                            ///< variant
  static constexpr const char* kSummary = "64x64x16, 4 warps, 4x8 per thread";  ///< one line
  static constexpr double kSmGflops = 306.0;    ///< one full SM's measured speed (above)
  static constexpr double kFixedUs = 0.0;       ///< a launch's fixed cost (above)
  static constexpr double kScalarRate = 0.834;  ///< its speed on the scalar path (above)
};
/// `wide_32x32`. Its constants were chosen by the plans they pick, not fitted to its times (a fit
/// left the model 0.17 off in logarithm either way): with every plan of every tile timed at 30 of
/// the random shapes' worst on an H200, the plan picked took 1.055 of the fastest plan's time at
/// 200 GFLOP/s, 1.076 at 250 and 1.085 at 290 (1.125 without the tile); its scalar rate is
/// wide_64x64's (docs/data/history/lab07_small_tiles_s32_nvidia-h200/).
struct Wide32x32 : BlockTileKernel<Tile32x32> {
  static constexpr const char* kName = "wide_32x32";                            ///< variant
  static constexpr const char* kSummary = "32x32x16, 2 warps, 4x4 per thread";  ///< one line
  static constexpr double kSmGflops = 200.0;    ///< a full SM's speed, chosen (above)
  static constexpr double kFixedUs = 0.0;       ///< a launch's fixed cost, chosen (above)
  static constexpr double kScalarRate = 0.834;  ///< wide_64x64's scalar rate (above)
};
/// `narrow_columns`: the narrow kernel, for a C a few columns wide. Its "tile" is the kNarrowRows
/// rows of each of kNarrowWarps warps by the widest column chunk; its speed is DRAM's, and its
/// FFMAs (a whole column chunk, 4, 8 or 16 wide, for every row) are a floor of their own at
/// kSmGflops.
struct NarrowColumns {
  static constexpr bool kNarrow = true;                   ///< the narrow kernel
  static constexpr const char* kName = "narrow_columns";  ///< variant
  /// one line
  static constexpr const char* kSummary =
      "for C a few columns wide: lanes split K, each warp streams 4 rows of A";
  static constexpr int BM = kNarrowWarps * kNarrowRows;  ///< rows of C per block
  static constexpr int BN = kNarrowMaxCols;              ///< the widest column chunk
  static constexpr int BK = 1;                           ///< K is not tiled
  static constexpr int kWarps = kNarrowWarps;            ///< warps per block
  static constexpr int kBlocksPerSm = 8;                 ///< blocks an SM holds at once
  static constexpr double kSmGflops = 100.0;             ///< its FFMAs' floor (above)
  static constexpr double kFixedUs = 2.0;                ///< a launch's fixed cost
  /// its speed is DRAM's at any alignment (not measured per alignment: an assumption)
  static constexpr double kScalarRate = 1.0;
};

/// A typed list of kernels: the single source that tables and dispatch are generated from.
template <class... Kernels>
struct KernelList {
  static constexpr int kSize = sizeof...(Kernels);  ///< kernels in the list

  /// The place of Kernel in the list (0-based); -1 when it is not there.
  template <class Kernel>
  static constexpr int index_of() {
    int i = 0, found = -1;
    ((std::is_same_v<Kernel, Kernels> ? found = i++ : i++), ...);
    return found;
  }

  /// Calls visit(std::type_identity<Kernel>{}) for the kernel at `index` (0-based, in the list's
  /// order). Throws std::out_of_range for an index past the list.
  template <class Visit>
  static void visit(int index, Visit&& visit) {
    int i = 0;
    const bool found =
        ((i++ == index ? (visit(std::type_identity<Kernels>{}), true) : false) || ...);
    if (!found) throw std::out_of_range("lab07: no kernel number " + std::to_string(index));
  }
};

/// The kernels `best` chooses from, largest tile first, the narrow kernel last: best_plan.cpp's
/// candidates, the `wide_*` and `narrow_columns` variants and best's launches all come from here.
using BestTiles = KernelList<Wide256x128, Wide128x256, Wide128x128, Wide128x64, Wide128x64x16,
                             Wide64x64, Wide32x32, NarrowColumns>;

}  // namespace lab07
