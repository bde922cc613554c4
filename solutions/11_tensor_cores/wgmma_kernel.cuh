// Lab 11 solution, step 4: Hopper's warpgroup MMA (wgmma). Built for sm_90a only; the launchers
// refuse other GPUs.
//
// Step 4, wgmma: four warps (a warpgroup) issue one asynchronous m64n128k16 together. The operands
// stay in shared memory: the instruction reads them through 64-bit descriptors (start address,
// the byte distance between 8-row groups, the swizzle mode) instead of each lane loading
// fragments, so no register or issue slot goes to ldmatrix. The tiles use the 128-byte swizzle of
// step 3, which is one of the layouts wgmma reads. A is K-major (row-major A: a row's 64 k are
// one 128-byte row); B is N-major (row-major B), which the instruction's transpose bit accepts for
// 16-bit types: B's 64 x 64 panels are 8 KiB apart (the descriptor's leading byte offset), its
// 8-row groups 1 KiB apart (the stride byte offset). cp.async still stages the tiles, so every
// thread spends instructions on addresses.
#pragma once

#include "swizzled_tiles.cuh"

namespace lab11 {
namespace {

// The descriptors of the swizzled stage layout (PTX ISA, "Asynchronous Warpgroup Level Matrix
// Shared Memory Layout", its "Matrix Descriptor" format: start address, leading and stride
// dimension byte offsets, each in 16-byte units, and the swizzle mode; ptx::wgmma_descriptor
// packs them). The numbers follow from SwizzledTile:
//  - A is K-major: a row of A holds a stage's 64 k in one 128-byte row, and the matrix is read in
//    core matrices of 8 rows x 16 bytes. The stride byte offset, from one 8-row group to the next
//    along M, is 8 rows x kRowBytes = 1024. With the 128-byte swizzle a K-major operand's leading
//    byte offset is not used (the ISA assumes 1): 16, one unit.
//  - B is N-major: 64-column panels of 64 k-rows. The stride byte offset, from one 8-k-row group
//    to the next, is again 8 x kRowBytes = 1024; the leading byte offset, from one 64-column
//    panel (the width of a 128-byte swizzle atom of 16-bit values) to the next, is kPanelBytes =
//    64 x 128 = 8192.
//  - Step kk of K (16 elements) moves A's start 16 x 2 = 32 bytes along its rows (the hardware
//    applies the swizzle to the final address, so the start stays unswizzled) and B's start 16
//    k-rows = 2048 bytes down its panels. The stages start on 1024-byte boundaries, where the
//    swizzle pattern repeats, so the descriptor's base offset stays 0.
// [descriptors]
__device__ __forceinline__ std::uint64_t a_descriptor(std::uint32_t a_rows, int kk) {
  return ptx::wgmma_descriptor(a_rows + kk * 32, 16, 8 * SwizzledTile::kRowBytes);
}
__device__ __forceinline__ std::uint64_t b_descriptor(std::uint32_t b_panels, int kk) {
  return ptx::wgmma_descriptor(b_panels + kk * 16 * SwizzledTile::kRowBytes,
                               SwizzledTile::kPanelBytes, 8 * SwizzledTile::kRowBytes);
}
// [descriptors]

// A descriptor `bytes` further on: its start address is its low field in 16-byte units, which no
// shared-memory address overflows, so one addition moves it (instead of packing it anew per
// wgmma).
__device__ __forceinline__ std::uint64_t advanced(std::uint64_t descriptor, int bytes) {
  return descriptor + (bytes >> 4);
}

// One stage of K (BK = 64: four k16 steps) into a warpgroup's accumulators: kRows / 64 blocks of
// 64 rows, block h reading A's rows from a_rows + 64 h rows, all from the same B panels. Returns
// once the tensor cores are done with the stage, so it may be overwritten. wgmma_hold keeps the
// compiler from touching the accumulators while the asynchronous instructions own them.
// [multiply_stage]
template <int kN, int kRowBlocks>
__device__ __forceinline__ void multiply_stage(float (&acc)[kRowBlocks][kN / 2],
                                               std::uint32_t a_rows, std::uint32_t b_panels) {
#pragma unroll
  for (int h = 0; h < kRowBlocks; ++h) ptx::wgmma_hold(acc[h]);
  ptx::wgmma_fence();
  const std::uint64_t a_first = a_descriptor(a_rows, 0), b_first = b_descriptor(b_panels, 0);
#pragma unroll
  for (int kk = 0; kk < SwizzledTile::BK / 16; ++kk) {
#pragma unroll
    for (int h = 0; h < kRowBlocks; ++h)
      ptx::wgmma_bf16<kN>(acc[h], advanced(a_first, h * 64 * SwizzledTile::kRowBytes + kk * 32),
                          advanced(b_first, kk * 16 * SwizzledTile::kRowBytes), 1);
  }
  ptx::wgmma_commit();
  ptx::wgmma_wait<0>();
#pragma unroll
  for (int h = 0; h < kRowBlocks; ++h) ptx::wgmma_hold(acc[h]);
}
// [multiply_stage]

template <bool kAligned>
__global__ void __launch_bounds__(WgmmaTile::kThreads) wgmma_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_HOPPER_DEVICE_CODE
  using Tile = WgmmaTile;
  const int row0 = blockIdx.y * Tile::BM, col0 = blockIdx.x * Tile::BN;
  float acc[1][Tile::BN / 2];
  zero(acc[0]);
  const auto multiply = [&](std::uint32_t a_rows, std::uint32_t b_panels) {
    multiply_stage<Tile::BN>(acc, a_rows, b_panels);
  };
  swizzled_stages<Tile, kAligned, true>(args, row0, col0, multiply);
  store_warpgroup_tile<Tile::BN>(args, acc[0], row0, col0, pair_stores_allowed(args));
#endif
  (void)args;
}

}  // namespace
}  // namespace lab11
