/// @file labs/11_tensor_cores/tiles.h
/// @brief Lab 11's tile shapes: one struct per rung, shared by the kernels and the launchers.
#pragma once

#include <cstddef>

namespace lab11 {

/// BF16 (or FP16) elements in one 16-byte chunk: the unit of cp.async, ldmatrix rows and the
/// swizzle.
inline constexpr int kChunk = 8;

/// `wmma_global`: 4 warps, each a 32 x 32 tile of C made of 2 x 2 fragments of 16 x 16 x 16.
struct WmmaGlobalTile {
  static constexpr int BM = 64;         ///< rows of C per block
  static constexpr int BN = 64;         ///< columns of C per block
  static constexpr int kWarpM = 32;     ///< rows of C per warp
  static constexpr int kWarpN = 32;     ///< columns of C per warp
  static constexpr int kWarpsN = 2;     ///< warps across the block tile
  static constexpr int kThreads = 128;  ///< threads per block
};

/// `wmma_pipelined`: 128 x 128 x 32 block tiles, 8 warps of 64 x 32 (4 x 2 fragments), rows padded
/// by 8 elements (16 bytes) against bank conflicts, kStages cp.async stages.
struct WmmaPipelinedTile {
  static constexpr int BM = 128;          ///< rows of C per block
  static constexpr int BN = 128;          ///< columns of C per block
  static constexpr int BK = 32;           ///< depth of each stage along K
  static constexpr int kPad = 8;          ///< elements added to each shared row (16 bytes)
  static constexpr int kStages = 3;       ///< cp.async stages in flight
  static constexpr int kWarpM = 64;       ///< rows of C per warp
  static constexpr int kWarpN = 32;       ///< columns of C per warp
  static constexpr int kWarpsN = 4;       ///< warps across the block tile
  static constexpr int kThreads = 256;    ///< threads per block
  static constexpr int kLdA = BK + kPad;  ///< elements per shared row of A
  static constexpr int kLdB = BN + kPad;  ///< elements per shared row of B
  /// bytes of one stage (A and B tiles)
  static constexpr std::size_t kStageBytes = (BM * kLdA + BK * kLdB) * 2;
  /// bytes for the epilogue: one 16 x 16 FP32 fragment per warp
  static constexpr std::size_t kEpilogueBytes = (kThreads / 32) * 16 * 16 * 4;
  /// dynamic shared memory per block
  static constexpr std::size_t kSharedBytes = kStages * kStageBytes + kEpilogueBytes;
};

/// The shared layout of the mma.sync and wgmma rungs: rows of 64 BF16 (128 bytes) whose eight
/// 16-byte chunks are permuted by XOR with the row's index mod 8 (the 128-byte swizzle that TMA
/// writes and wgmma reads). A stage holds A as BM such rows (K-major) and B as BN / 64 panels of
/// 64 k-rows by 64 columns (N-major), each panel 8 KiB.
struct SwizzledTile {
  static constexpr int BK = 64;             ///< depth of each stage along K (one 128-byte row)
  static constexpr int kRowBytes = 128;     ///< bytes per swizzled row
  static constexpr int kPanelColumns = 64;  ///< columns of B per panel
  static constexpr int kPanelBytes = BK * kRowBytes;  ///< bytes of one 64 x 64 panel of B
};

/// `mma_swizzled`: 128 x 128 x 64, 4 warps of 64 x 64 (4 x 8 m16n8 tiles each), 3 stages.
struct MmaTile {
  static constexpr int BM = 128;               ///< rows of C per block
  static constexpr int BN = 128;               ///< columns of C per block
  static constexpr int BK = SwizzledTile::BK;  ///< depth of each stage along K
  static constexpr int kStages = 3;            ///< cp.async stages in flight
  static constexpr int kWarpM = 64;            ///< rows of C per warp
  static constexpr int kWarpN = 64;            ///< columns of C per warp
  static constexpr int kWarpsN = 2;            ///< warps across the block tile
  static constexpr int kThreads = 128;         ///< threads per block
  /// bytes of one stage (A and B tiles)
  static constexpr std::size_t kStageBytes = (BM + BN) * BK * 2;
  /// dynamic shared memory per block, with room to align the stages to 1024 bytes
  static constexpr std::size_t kSharedBytes = kStages * kStageBytes + 1024;
};

/// `mma_fp16`: `mma_swizzled` with FP16 inputs, sized for compute capability 7.5 (64 KiB of shared
/// memory per SM, no cp.async): 128 x 64 x 64, 4 warps of 64 x 32 (4 x 4 m16n8 tiles each), 2
/// stages (the copies are synchronous on 7.5, so a third would only take memory).
struct MmaFp16Tile {
  static constexpr int BM = 128;               ///< rows of C per block
  static constexpr int BN = 64;                ///< columns of C per block
  static constexpr int BK = SwizzledTile::BK;  ///< depth of each stage along K
  static constexpr int kStages = 2;            ///< stages
  static constexpr int kWarpM = 64;            ///< rows of C per warp
  static constexpr int kWarpN = 32;            ///< columns of C per warp
  static constexpr int kWarpsN = 2;            ///< warps across the block tile
  static constexpr int kThreads = 128;         ///< threads per block
  /// bytes of one stage (A and B tiles)
  static constexpr std::size_t kStageBytes = (BM + BN) * BK * 2;
  /// dynamic shared memory per block, with room to align the stages to 1024 bytes
  static constexpr std::size_t kSharedBytes = kStages * kStageBytes + 1024;
};

/// `wgmma`: one warpgroup, 64 x 128 x 64 tiles (one m64n128k16 per 16 of K), 4 cp.async stages.
struct WgmmaTile {
  static constexpr int BM = 64;                ///< rows of C per block
  static constexpr int BN = 128;               ///< columns of C per block
  static constexpr int BK = SwizzledTile::BK;  ///< depth of each stage along K
  static constexpr int kStages = 4;            ///< cp.async stages in flight
  static constexpr int kThreads = 128;         ///< threads per block (one warpgroup)
  /// bytes of one stage (A and B tiles)
  static constexpr std::size_t kStageBytes = (BM + BN) * BK * 2;
  /// dynamic shared memory per block, with room to align the stages to 1024 bytes
  static constexpr std::size_t kSharedBytes = kStages * kStageBytes + 1024;
};

/// `tma_wgmma`: one warpgroup, 128 x 128 x 64 tiles brought by TMA, 4 stages on mbarriers.
struct TmaTile {
  static constexpr int BM = 128;               ///< rows of C per block
  static constexpr int BN = 128;               ///< columns of C per block
  static constexpr int BK = SwizzledTile::BK;  ///< depth of each stage along K
  static constexpr int kStages = 4;            ///< TMA stages in flight
  static constexpr int kThreads = 128;         ///< threads per block (one warpgroup)
  /// bytes of one stage (A and B tiles)
  static constexpr std::size_t kStageBytes = (BM + BN) * BK * 2;
  /// dynamic shared memory per block: stages, 1024-byte alignment, a full and an empty mbarrier a
  /// stage
  static constexpr std::size_t kSharedBytes = kStages * kStageBytes + 1024 + 2 * kStages * 8;
};

/// A consumer warp's staging of its 16 rows of accumulators, 32 columns at a time, so that C is
/// written a row's consecutive columns per store (full 32-byte sectors at any alignment) rather
/// than in the MMA fragment's scattered pairs. Rows are padded to 40 floats: the fragment's pairs
/// then land in distinct banks.
struct EpilogueStaging {
  static constexpr int kRows = 16;     ///< a warp's rows of a 64-row accumulator block
  static constexpr int kColumns = 32;  ///< columns staged at a time
  static constexpr int kStride = 40;   ///< floats between staged rows
  /// bytes of one warp's buffer
  static constexpr std::size_t kWarpBytes = kRows * kStride * sizeof(float);
};

/// Stages of the warp-specialized kernel's ring on 128-row tiles (two consumers).
inline constexpr int kSpecializedStages = 4;
/// Stages on 64-row tiles (one consumer): a stage is half to two thirds the size, so twice as many
/// fit, and a C of few rows, whose SMs each wait on their copies, keeps twice the bytes in flight.
inline constexpr int kOneConsumerStages = 8;

/// `warp_specialized`: a producer warpgroup and kRows / 64 consumer warpgroups (64 x kWidth each)
/// on kRows x kWidth x 64 tiles, a persistent grid of one block per SM. On 128-row tiles (two
/// consumers) kWidth is 256 (the variant `warp_specialized`), 128 (`warp_specialized_128`: twice
/// the tiles, for problems whose 128 x 256 tiles would leave SMs idle) or 64 (`best`'s, for a C of
/// few columns). On 64-row tiles (one consumer: `warp_specialized_64x128`, and `best`'s for a C of
/// few rows, at widths 64 and 128) a tile does not multiply the rows C lacks.
template <int kWidth, int kRows = 128>
struct SpecializedTile {
  static_assert(kRows == 64 || kRows == 128, "one or two consumer warpgroups of 64 rows");
  static constexpr int BM = kRows;                         ///< rows of C per tile
  static constexpr int BN = kWidth;                        ///< columns of C per tile
  static constexpr int BK = SwizzledTile::BK;              ///< depth of each stage along K
  static constexpr int kConsumers = kRows / 64;            ///< consumer warpgroups, 64 rows each
  static constexpr int kThreads = 128 * (kConsumers + 1);  ///< threads per block (+ the producer)
  /// TMA stages in flight
  static constexpr int kStages = kConsumers == 2 ? kSpecializedStages : kOneConsumerStages;
  static constexpr int kGroupRows = 8;  ///< tile rows a group of consecutive tiles walks down
  /// bytes of one stage (A and B tiles)
  static constexpr std::size_t kStageBytes = (BM + BN) * BK * 2;
  /// bytes where each consumer warp stages its accumulators on their way to C (EpilogueStaging)
  static constexpr std::size_t kStagingBytes = kConsumers * 4 * EpilogueStaging::kWarpBytes;
  /// dynamic shared memory per block: stages, 1024-byte alignment, a full and an empty mbarrier a
  /// stage, the epilogue's staging
  static constexpr std::size_t kSharedBytes =
      kStages * kStageBytes + 1024 + 2 * kStages * 8 + kStagingBytes;
  static_assert(kSharedBytes <= 227 * 1024, "the stages fit an SM's shared memory");
};

/// The most stages step 7's ring has (subpixel_plan.h fits as many as shared memory holds, up to
/// this; the kernel keeps two barriers for each).
inline constexpr int kSubpixelMaxStages = 4;

/// `tconv_subpixel_bf16` (step 7): step 6's producer and two consumer warpgroups on the DCGAN's
/// sub-pixel phase GEMMs. A tile is BM input pixels (whole image rows, in NHWC order) by kWidth
/// output channels; each consumer multiplies kRowBlocks blocks of 64 pixels (two where the
/// accumulators fit, so that each stage's B serves four blocks). Its stages' size and number
/// depend on the layer: subpixel_plan.h decides them and the kernel reads them from its
/// parameters.
template <int kWidth, int kRowBlocks>
struct SubpixelTile {
  static constexpr int kConsumers = 2;                     ///< consumer warpgroups
  static constexpr int BM = 64 * kRowBlocks * kConsumers;  ///< input pixels per tile
  static constexpr int BN = kWidth;                        ///< output channels per tile
  static constexpr int kMaxStages = kSubpixelMaxStages;    ///< stages a ring may have
  /// whether subpixel_plan.h can choose the halo for this tile: never at 256 channels, where three
  /// taps of B leave room for one stage
  static constexpr bool kMayHalo = kWidth != 256;
  static constexpr int kThreads = 128 * (kConsumers + 1);  ///< threads per block (+ the producer)
};

/// The rate of `warp_specialized_128` per SM against `warp_specialized`'s, measured at 8192^3 on
/// the H100 (docs/data/results/lab11_*.json, 625,592 against 664,479 GFLOP/s): `best` weighs the
/// two tile widths' waves with it.
inline constexpr double kNarrowTileRate = 0.94;

/// The same for 128 x 64 tiles, which `best` runs where C has few columns: an estimate, not yet
/// measured (half a 128-wide tile's multiply-adds for each byte of A a stage brings, so below its
/// rate); issue 53's records of the shapes it runs will tell.
inline constexpr double kNarrowestTileRate = 0.7;

/// The rate per SM of 64-row tiles (one consumer warpgroup) against 128-row tiles of the same
/// width: chosen by the plans it picks, not fitted to their times. At 23 shapes on the H200 (the
/// random shapes' worst and some large ones, every tile and split timed), the model's pick took
/// 1.028 of the fastest plan's time (geometric mean; 1.123 without 64-row tiles); 0.6 picked as
/// well, 0.5 and 0.8 worse (docs/data/history/lab11_few_rows_s33_nvidia-h200/). `best` does not
/// weigh them for a C of at most kFewColumnsMax columns (below), the few-columns kernel's class:
/// there A is nearly all the bytes, the tile's B mostly columns of zeros, and the 64-row plans were
/// slower than the 128-row ones at both shapes timed (5043 x 8 x 2296 and 2885 x 8 x 4457, 1.24x
/// and 1.19x), where the model had them faster.
inline constexpr double kOneConsumerTileRate = 0.7;

/// The tile widths `best` chooses among on 128-row tiles, narrowest first.
inline constexpr int kSpecializedWidths[] = {64, 128, 256};
/// The tile widths `best` chooses among on 64-row tiles: a C that few rows fills few tiles anyway.
inline constexpr int kOneConsumerWidths[] = {64, 128};

/// The warp-specialized kernel's rate per SM on `rows` x `width` tiles against the 128 x 256
/// tiles'.
inline constexpr double specialized_tile_rate(int width, int rows = 128) {
  const double rate = width == 256 ? 1.0 : width == 128 ? kNarrowTileRate : kNarrowestTileRate;
  return rows == 128 ? rate : rate * kOneConsumerTileRate;
}

/// The few-columns kernel (few_columns.cuh, given code `best` runs for a C of at most
/// kFewColumnsMax columns): blocks of kFewColumnsWarps warps on kFewColumnsBlockRows rows of A (and
/// C) over the block's slice of K (at most kFewColumnsMaxSliceK values, whose B the block holds in
/// shared memory), a warp 16 rows (one mma.sync m16n8k16 a step: its n8 holds all the columns) and
/// every fourth chunk of 64 values of the slice.
inline constexpr int kFewColumnsMax = 8;         ///< C of at most this many columns may take it
inline constexpr int kFewColumnsWarps = 8;       ///< warps per block
inline constexpr int kFewColumnsBlockRows = 32;  ///< rows of A (and C) per block
inline constexpr int kFewColumnsThreads = kFewColumnsWarps * 32;  ///< threads per block
/// Blocks an SM holds at once, which the kernel's __launch_bounds__ asks for (128 registers a
/// thread, which it fits without spilling; 3 blocks leave 80, and it spills).
inline constexpr int kFewColumnsBlocksPerSm = 2;
/// The longest slice of K a block takes: its B, 8 columns of BF16, in 17 KiB of shared memory.
inline constexpr int kFewColumnsMaxSliceK = 1024;

/// The few-rows kernel (few_rows.cuh, given code `best` runs for a C of at most kFewRowsMax
/// rows): blocks of kFewRowsWarps warps on kFewRowsCols columns of B (and C) over the block's slice
/// of K (at most kFewRowsMaxSliceK values, whose A the block holds in shared memory in FP32), a
/// warp every eighth row of the slice, a lane 8 columns, kFewRowsAhead rows' loads in flight.
inline constexpr int kFewRowsMax = 8;                       ///< C of at most this many rows
inline constexpr int kFewRowsWarps = 8;                     ///< warps per block
inline constexpr int kFewRowsThreads = kFewRowsWarps * 32;  ///< threads per block
/// Columns of C per block: 31 lanes' 8, so that each warp's 32 lanes cover them whatever the
/// offset of its rows from 16 bytes.
inline constexpr int kFewRowsCols = 31 * 8;
inline constexpr int kFewRowsAhead = 4;         ///< rows of B a lane has in flight
inline constexpr int kFewRowsMaxSliceK = 1024;  ///< the longest slice of K a block takes
/// Blocks an SM holds at once of the kernel for a C of `rows` rows (its __launch_bounds__): its
/// FP32 accumulators, 8 a row of C, and its rows in flight take the registers (ptxas: at 3 blocks,
/// 80 registers a thread, the kernel for 2 rows fits and the one for 4 spills).
constexpr int few_rows_blocks_per_sm(int rows) {
  return rows <= 2 ? 3 : 2;
}

/// The short-K kernel (short_k.cuh, given code `best` runs where a short K leaves a GEMM mostly
/// writing C): blocks of kShortKWarps warps, each a kShortKRows x kShortKCols tile of C (a warp 32
/// x 32: two m16 by four n8 tiles of mma.sync), K staged kShortKChunk values at a time in two
/// buffers, C staged through shared memory so that a warp stores whole rows.
inline constexpr int kShortKRows = 64;   ///< rows of C a block computes
inline constexpr int kShortKCols = 128;  ///< columns of C a block computes
inline constexpr int kShortKChunk = 32;  ///< values of K a buffer holds (two k16 steps)
inline constexpr int kShortKWarps = 8;   ///< warps per block: 2 down the tile, 4 across
inline constexpr int kShortKThreads = kShortKWarps * 32;  ///< threads per block
inline constexpr int kShortKBlocksPerSm = 3;  ///< blocks an SM holds (its __launch_bounds__)
/// Padding of the shared rows, elements: 16 bytes of BF16 keep ldmatrix's eight rows on eight
/// different groups of banks; 8 floats keep a half-warp's 64-bit accumulator stores apart.
inline constexpr int kShortKPad = 8;
/// BF16 values of a buffer: A's chunk [row][k], then B's [k][column], each row padded.
inline constexpr int kShortKBufferValues =
    kShortKRows * (kShortKChunk + kShortKPad) + kShortKChunk * (kShortKCols + kShortKPad);
/// Buffers of chunks where K is cut into slices, one a block of a cluster (short_k.cuh): a block
/// then has its SM nearly to itself, and only chunks on their way at once cover a trip from DRAM.
inline constexpr int kSlicedStages = 6;
/// Blocks an SM holds of the sliced kernel (its __launch_bounds__; six buffers each).
inline constexpr int kSlicedBlocksPerSm = 2;
/// The most slices of K a cluster takes: 16, a cluster size Hopper allows where a kernel asks
/// (cudaFuncAttributeNonPortableClusterSizeAllowed; the portable limit is 8).
inline constexpr int kMaxClusterSlices = 16;
/// Dynamic shared memory of the short-K kernel with `stages` buffers of chunks, or C's tile in
/// FP32, which takes their place.
constexpr int short_k_shared_bytes(int stages) {
  return stages * kShortKBufferValues * 2 > kShortKRows * (kShortKCols + kShortKPad) * 4
             ? stages * kShortKBufferValues * 2
             : kShortKRows * (kShortKCols + kShortKPad) * 4;
}

}  // namespace lab11
