// Lab 11 solution, step 3: mma.sync m16n8k16 fed by ldmatrix from swizzled shared memory.
//
// Below WMMA sits one PTX instruction per warp: mma.sync multiplies a 16 x 16 piece of A by a
// 16 x 8 piece of B into 16 x 8 FP32 accumulators spread over the warp's registers, in a layout
// the ISA documents, so the epilogue can write C straight from registers. ldmatrix loads the
// operands: each lane names one 16-byte row of an 8 x 8 matrix and gets back its share of four
// such matrices (.trans gives B's k-pairs from a row-major tile).
//
// A block computes 128 x 128 of C with 4 warps of 64 x 64 (4 x 8 mma tiles, 128 accumulators a
// lane); tiles of K = 64 come in through cp.async, 3 stages deep. Shared rows are 128 bytes (64
// BF16) and their 16-byte chunks are XOR-swizzled with the row index (swizzled_offset): the 8
// rows one ldmatrix phase reads at the same logical chunk land on 8 different chunk positions,
// so the 32 banks serve them in one wavefront. Unpadded rows would put all 8 in the same 4 banks.
//
// `mma_fp16` is the same kernel with FP16 inputs, for GPUs of compute capability 7.5 (T4, RTX 20):
// their tensor cores take FP16 (BF16 came with 8.0) as m16n8k8, two of which make one m16n8k16
// (tensor_core_ptx.cuh), from the very registers ldmatrix fills. Its tile, MmaFp16Tile (128 x 64 x
// 64, warps of 64 x 32, 2 stages: 49 KiB), fits 7.5's 64 KiB of shared memory per SM, where
// mma_swizzled's 97 KiB would not; without cp.async there, the copies are plain loads and stores.
#pragma once

#include "swizzled_tiles.cuh"

namespace lab11 {
namespace {

// Step 3 for input type T (bf16 or fp16) on tile Tile.
template <class T, class Tile, bool kAligned>
__device__ __forceinline__ void mma_swizzled_body(const cudalabs::GemmArgsOf<T>& args) {
  constexpr int kTilesM = Tile::kWarpM / 16;  // m16 pieces of A per warp
  constexpr int kTilesN = Tile::kWarpN / 8;   // n8 pieces of B per warp
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = blockIdx.y * Tile::BM, col0 = blockIdx.x * Tile::BN;
  const int warp_row = (warp / Tile::kWarpsN) * Tile::kWarpM;
  const int warp_col = (warp % Tile::kWarpsN) * Tile::kWarpN;
  float acc[kTilesM][kTilesN][4] = {};

  const auto multiply = [&](std::uint32_t a_base, std::uint32_t b_base) {
  // [fragments]
#pragma unroll
    for (int kk = 0; kk < Tile::BK / 16; ++kk) {
      // Lane l names row l % 16 of the 16 x 16 piece, chunk 2 kk + l / 16: the four 8 x 8
      // matrices come back in mma's order (rows 0-7 | 8-15) x (k 0-7 | 8-15).
      std::uint32_t a[kTilesM][4];
#pragma unroll
      for (int i = 0; i < kTilesM; ++i) {
        const int row = warp_row + 16 * i + (lane & 15);
        ptx::ldmatrix_x4<false>(a[i], a_base + swizzled_offset(row, 2 * kk + (lane >> 4)));
      }
      // Lane l names k-row 16 kk + l % 16 of 16 columns: (k 0-7 | 8-15) x (columns 0-7 | 8-15),
      // transposed so that each lane holds pairs along k, as mma's B operand wants.
      std::uint32_t b[kTilesN / 2][4];
#pragma unroll
      for (int j = 0; j < kTilesN / 2; ++j) {
        const int k = 16 * kk + (lane & 15);
        const int column_chunk = (warp_col + 16 * j) / kChunk + (lane >> 4);
        ptx::ldmatrix_x4<true>(b[j], b_base + b_panel_offset(k, column_chunk));
      }
#pragma unroll
      for (int i = 0; i < kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < kTilesN; ++j)
          mma_16x8x16(T{}, acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
    }
    // [fragments]
  };
  swizzled_stages<Tile, kAligned, false>(args, row0, col0, multiply);

  // Lane l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and the next, of each m16n8 tile.
  const bool pairs = pair_stores_allowed(args);
#pragma unroll
  for (int i = 0; i < kTilesM; ++i) {
#pragma unroll
    for (int j = 0; j < kTilesN; ++j) {
      const int row = row0 + warp_row + 16 * i + lane / 4;
      const int col = col0 + warp_col + 8 * j + 2 * (lane % 4);
      store_pair(args, row, col, acc[i][j][0], acc[i][j][1], pairs);
      store_pair(args, row + 8, col, acc[i][j][2], acc[i][j][3], pairs);
    }
  }
}

}  // namespace
}  // namespace lab11
