// Lab 11 solution, the optional challenge, steps 5 and 6: the copy engine (TMA) and warp
// specialisation, on step 4's multiply_stage. Built for sm_90a only; the launchers refuse other
// GPUs.
//
// Step 5, TMA: one thread asks the copy engine for a whole box of A or B (128 x 64 elements)
// described by a tensor map built on the host; the engine swizzles it into shared memory, fills
// zeros outside the matrix and counts the bytes on an mbarrier, which the warpgroup waits on. No
// thread computes an address, and the edges cost nothing.
//
// Step 6, warp specialisation: a producer warpgroup only issues TMA (one thread), two consumer
// warpgroups only multiply (64 x 256 each of a 128 x 256 tile; 64 x 128 and 64 x 64 for the
// narrower instances; on 64-row tiles one consumer, with twice the stages). Each stage has two
// barriers: "full" (the bytes landed) and "empty" (every consumer warp finished reading it), so
// producer and consumers run as far ahead of each other as the stages allow. setmaxnreg moves
// registers from the producer (40 a thread) to the consumers (232), which hold 128 FP32
// accumulators each. The grid is persistent, one block per SM walking the tiles in grouped order,
// so the next tile's loads overlap this tile's epilogue. What a block walks are units of work
// (work_units.h): a tile with all of K, or, when `best` splits K, a tile and one slice of its
// k-blocks, stored into that slice's partial C, after which the given finish_unit (unit_finish.cuh)
// lets the last slice of each 64 rows to arrive sum them into C.
#pragma once

#include "staged_store.cuh"
#include "unit_finish.cuh"
#include "wgmma_kernel.cuh"
#include "work_units.h"

#include <cuda.h>

namespace lab11 {
namespace {

// Asks the copy engine for stage `s`'s tiles at k tile `kt`: A's BM x 64 box at (row0, k) and
// B's 64 x 64 panels at (k, col0 + 64 p), all counted on `full`.
template <int BM, int BN>
__device__ __forceinline__ void load_stage_tma(unsigned char* stage, std::uint64_t* full,
                                               const CUtensorMap& a_map, const CUtensorMap& b_map,
                                               int row0, int col0, int kt) {
  constexpr int kStageBytes = (BM + BN) * SwizzledTile::BK * 2;
  const int k = kt * SwizzledTile::BK;
  ptx::mbarrier_arrive_expect_bytes(full, kStageBytes);
  ptx::tma_load_2d(stage, &a_map, full, k, row0);
  unsigned char* b_panels = stage + BM * SwizzledTile::kRowBytes;
#pragma unroll
  for (int p = 0; p < BN / SwizzledTile::kPanelColumns; ++p)
    ptx::tma_load_2d(b_panels + p * SwizzledTile::kPanelBytes, &b_map, full,
                     col0 + p * SwizzledTile::kPanelColumns, k);
}

__global__ void __launch_bounds__(TmaTile::kThreads)
    tma_wgmma_kernel(cudalabs::Bf16GemmArgs args, const __grid_constant__ CUtensorMap a_map,
                     const __grid_constant__ CUtensorMap b_map) {
#if LAB11_HOPPER_DEVICE_CODE
  using Tile = TmaTile;
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  unsigned char* shared = aligned_shared(dynamic_shared);
  const auto stage = [&](int s) { return shared + s * Tile::kStageBytes; };
  std::uint64_t* full =
      reinterpret_cast<std::uint64_t*>(shared + Tile::kStages * Tile::kStageBytes);
  const int row0 = blockIdx.y * Tile::BM, col0 = blockIdx.x * Tile::BN;
  const int tiles = (args.k + Tile::BK - 1) / Tile::BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Tile::kStages; ++s) ptx::mbarrier_init(&full[s], 1);
    ptx::fence_barrier_init();
    for (int t = 0; t < Tile::kStages && t < tiles; ++t)
      load_stage_tma<Tile::BM, Tile::BN>(stage(t), &full[t], a_map, b_map, row0, col0, t);
  }
  __syncthreads();

  float acc[2][Tile::BN / 2];  // rows 0-63 and 64-127 of the tile
  zero(acc[0]);
  zero(acc[1]);
  for (int t = 0; t < tiles; ++t) {
    const int s = t % Tile::kStages;
    ptx::mbarrier_wait(&full[s], (t / Tile::kStages) & 1);
    const std::uint32_t a_rows = ptx::shared_address(stage(s));
    const std::uint32_t b_panels = a_rows + Tile::BM * SwizzledTile::kRowBytes;
    multiply_stage<Tile::BN>(acc, a_rows, b_panels);
    __syncthreads();  // every warp is done with stage s: refill it
    if (threadIdx.x == 0 && t + Tile::kStages < tiles)
      load_stage_tma<Tile::BM, Tile::BN>(stage(s), &full[s], a_map, b_map, row0, col0,
                                         t + Tile::kStages);
  }
  const bool pairs = pair_stores_allowed(args);
  store_warpgroup_tile<Tile::BN>(args, acc[0], row0, col0, pairs);
  store_warpgroup_tile<Tile::BN>(args, acc[1], row0 + 64, col0, pairs);
#endif
  (void)args;
  (void)a_map;
  (void)b_map;
}

template <int kWidth, int kRows>
__global__ void __launch_bounds__(SpecializedTile<kWidth, kRows>::kThreads, 1)
    warp_specialized_kernel(cudalabs::Bf16GemmArgs args, const __grid_constant__ CUtensorMap a_map,
                            const __grid_constant__ CUtensorMap b_map, WorkUnits units) {
#if LAB11_HOPPER_DEVICE_CODE
  using Tile = SpecializedTile<kWidth, kRows>;
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  unsigned char* shared = aligned_shared(dynamic_shared);
  const auto stage = [&](int s) { return shared + s * Tile::kStageBytes; };
  std::uint64_t* full =
      reinterpret_cast<std::uint64_t*>(shared + Tile::kStages * Tile::kStageBytes);
  std::uint64_t* empty = full + Tile::kStages;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Tile::kStages; ++s) {
      ptx::mbarrier_init(&full[s], 1);                      // the producer's arrival + bytes
      ptx::mbarrier_init(&empty[s], Tile::kConsumers * 4);  // every consumer warp
    }
    ptx::fence_barrier_init();
  }
  __syncthreads();

  const int group = threadIdx.x / 128;
  if (group == 0) {
    // [producer]
    // Producer: one thread walks every unit of this block (a tile, and its slice of K) and keeps
    // the stages full.
    ptx::set_max_registers<40, false>();
    if (threadIdx.x == 0) {
      int s = 0, phase = 0;
      for (int unit = blockIdx.x; unit < units.count(); unit += gridDim.x) {
        const int2 at =
            grouped_tile(units.tile(unit), units.tiles_m, units.tiles_n, Tile::kGroupRows);
        // the unit's range once: recomputed each step (a division), it kept the loop from unrolling
        const int first = units.first_k_block(unit), end = units.end_k_block(unit);
        for (int kt = first; kt < end; ++kt) {
          ptx::mbarrier_wait(&empty[s], phase ^ 1);  // a fresh barrier passes parity 1 at once
          load_stage_tma<Tile::BM, Tile::BN>(stage(s), &full[s], a_map, b_map, at.x * Tile::BM,
                                             at.y * Tile::BN, kt);
          if (++s == Tile::kStages) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    }
    // [producer]
  } else {
    // [consumer]
    // Consumers: warpgroup c multiplies rows 64 c .. 64 c + 63 of every unit's tile, over the
    // unit's slice of K, and stores them through shared memory (staged_store.cuh) where the
    // unit's output lies (C, or its slice of the workspace args.c then points to).
    ptx::set_max_registers<232, true>();
    // Broadcast from lane 0: the compiler then knows the warpgroup is the same across the warp,
    // and keeps the descriptors that follow from it in uniform registers.
    const int consumer = __shfl_sync(0xffffffffu, group, 0) - 1, lane = threadIdx.x % 32;
    // This warp's staging buffer, after the barriers (staged_store.cuh).
    float* staging = reinterpret_cast<float*>(empty + Tile::kStages) +
                     (threadIdx.x / 32 - 4) * (EpilogueStaging::kWarpBytes / sizeof(float));
    int s = 0, phase = 0;
    for (int unit = blockIdx.x; unit < units.count(); unit += gridDim.x) {
      const int2 at =
          grouped_tile(units.tile(unit), units.tiles_m, units.tiles_n, Tile::kGroupRows);
      float acc[1][Tile::BN / 2];
      zero(acc[0]);
      const int first = units.first_k_block(unit), end = units.end_k_block(unit);
      for (int kt = first; kt < end; ++kt) {
        ptx::mbarrier_wait(&full[s], phase);
        const std::uint32_t a_rows =
            ptx::shared_address(stage(s)) + consumer * 64 * SwizzledTile::kRowBytes;
        const std::uint32_t b_panels =
            ptx::shared_address(stage(s)) + Tile::BM * SwizzledTile::kRowBytes;
        multiply_stage<Tile::BN>(acc, a_rows, b_panels);
        if (lane == 0) ptx::mbarrier_arrive(&empty[s]);
        if (++s == Tile::kStages) {
          s = 0;
          phase ^= 1;
        }
      }
      const int row0 = at.x * Tile::BM + consumer * 64, col0 = at.y * Tile::BN;
      // C, or the workspace's slice: each its own alignment (a whole tile of a tail split is C's)
      const cudalabs::Bf16GemmArgs out = units.output(args, unit);
      store_warpgroup_tile_staged<Tile::BN>(out, acc[0], row0, col0, staging,
                                            staged_store_width(out));
      finish_unit<kWidth, kRows>(args, units, unit, row0, col0, consumer);
    }
    // [consumer]
  }
#endif
  (void)args;
  (void)a_map;
  (void)b_map;
  (void)units;
}

}  // namespace
}  // namespace lab11
