// Lab 11 solution, step 3's layout, written once for steps 3 and 4: the 128-byte swizzle of the
// shared stages that ldmatrix (step 3) and wgmma (step 4) read, and the cp.async stages that fill
// it. The helpers every rung shares are given (staging.cuh).
#pragma once

#include "staging.cuh"

namespace lab11 {

// Byte offset of 16-byte chunk `chunk` (0..7) of 128-byte row `row` in a swizzled region: the
// chunk index is XORed with row mod 8. Eight consecutive rows read at the same logical chunk (what
// ldmatrix and the tensor cores do) then touch eight different chunk positions, so all 32 banks.
// It is the pattern TMA's CU_TENSOR_MAP_SWIZZLE_128B writes and wgmma's 128-byte swizzle mode
// reads, provided the region starts on a 1024-byte boundary.
__device__ __forceinline__ int swizzled_offset(int row, int chunk) {
  return row * SwizzledTile::kRowBytes + ((chunk ^ (row & 7)) << 4);
}

// Where chunk (k, n / 8) of a B stage lives: panel n / 64 (8 KiB each), then swizzled_offset
// within it.
__device__ __forceinline__ int b_panel_offset(int k, int column_chunk) {
  return (column_chunk >> 3) * SwizzledTile::kPanelBytes + swizzled_offset(k, column_chunk & 7);
}

// Starts copying A's BM x 64 and B's 64 x BN tile at k0 into a swizzled stage (A rows, then B
// panels).
template <int BM, int BN, int kThreads, bool kAligned, class T>
__device__ __forceinline__ void stage_swizzled_tiles(const cudalabs::GemmArgsOf<T>& args,
                                                     unsigned char* stage, int row0, int col0,
                                                     int k0) {
  // Each thread's chunks counted from 0, a whole number of them, and unrolled: off alignment the
  // element loads of every chunk are then in flight before the first store waits for its data.
  constexpr int kChunksPerRow = SwizzledTile::kRowBytes / 16;
  constexpr int kChunksA = BM * kChunksPerRow, kChunksB = BN / kChunk;
  constexpr int kPerThreadA = kChunksA / kThreads;
  constexpr int kPerThreadB = SwizzledTile::BK * kChunksB / kThreads;
  static_assert(
      kPerThreadA * kThreads == kChunksA && kPerThreadB * kThreads == SwizzledTile::BK * kChunksB,
      "every thread stages the same number of chunks");
  unsigned char* b_stage = stage + BM * SwizzledTile::kRowBytes;
#pragma unroll
  for (int i = 0; i < kPerThreadA; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * kThreads;
    const int row = chunk / kChunksPerRow, c = chunk % kChunksPerRow;
    stage_chunk<kAligned>(stage + swizzled_offset(row, c), args.a, args.lda, args.m, args.k,
                          row0 + row, k0 + c * kChunk);
  }
#pragma unroll
  for (int i = 0; i < kPerThreadB; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * kThreads;
    const int k = chunk / kChunksB, c = chunk % kChunksB;
    stage_chunk<kAligned>(b_stage + b_panel_offset(k, c), args.b, args.ldb, args.k, args.n, k0 + k,
                          col0 + c * kChunk);
  }
}

// The block's whole loop over K on Tile's stages (1024-byte aligned in the dynamic shared
// memory), through staging.cuh's cp_async_pipeline: stage_swizzled_tiles fills each stage, and
// multiply(a_rows, b_panels) gets the shared addresses of the A rows and B panels of a stage that
// has landed.
// [swizzled_stages]
template <class Tile, bool kAligned, bool kAsyncReaders, class T, class Multiply>
__device__ __forceinline__ void swizzled_stages(const cudalabs::GemmArgsOf<T>& args, int row0,
                                                int col0, Multiply multiply) {
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  unsigned char* shared = aligned_shared(dynamic_shared);
  const auto load = [&](int s, int t) {
    stage_swizzled_tiles<Tile::BM, Tile::BN, Tile::kThreads, kAligned>(
        args, shared + s * Tile::kStageBytes, row0, col0, t * Tile::BK);
  };
  const auto consume = [&](int s) {
    const std::uint32_t a_rows = ptx::shared_address(shared + s * Tile::kStageBytes);
    multiply(a_rows, a_rows + Tile::BM * SwizzledTile::kRowBytes);
  };
  cp_async_pipeline<Tile::kStages, kAsyncReaders>((args.k + Tile::BK - 1) / Tile::BK, load,
                                                  consume);
}
// [swizzled_stages]

}  // namespace lab11
