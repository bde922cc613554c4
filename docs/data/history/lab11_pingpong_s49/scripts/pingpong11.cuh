// Issue 53, session 49: two ways to keep lab 11's tensor cores busy while a tile's C is stored,
// beside the solution's warp-specialized kernel (hopper_kernels.cuh), for bench_pingpong11.cu.
//  - kPending 1: a consumer keeps one stage's wgmma group in flight while it waits for the next
//    stage, and hands back the stage before it (the solution waits for every group, wait<0>).
//  - kPingpong: each consumer warpgroup takes every other unit of its block whole (64 kRowBlocks
//    rows x kWidth), instead of both sharing one 128-row tile. The ring is filled in unit order, so
//    the second consumer's stages come as the first's run out: one multiplies while the other
//    stores. The consumers take turns at the ring (a "turn" mbarrier each, which the other arrives
//    on once it has waited on its unit's last stage): a consumer that skipped the other's stages
//    could otherwise wait on a stage's barrier more than one phase ahead of it, where the parity
//    it waits on comes round early.
// Included after the solution's kernels.cu; K whole only (no finish_unit).
#pragma once

#include "sector_store11.cuh"

namespace lab11 {
namespace {

template <int kWidth, int kRowBlocks, int kStages>
struct PingpongTile {
  static constexpr int BM = 64 * kRowBlocks;
  static constexpr int BN = kWidth;
  static constexpr int BK = SwizzledTile::BK;
  static constexpr int kThreads = 384;  // a producer and two consumer warpgroups
  static constexpr int kGroupRows = 8;
  static constexpr std::size_t kStageBytes = (BM + BN) * BK * 2;
  static constexpr std::size_t kStagingBytes = 8 * EpilogueStaging::kWarpBytes;
  static constexpr std::size_t kSharedBytes =
      kStages * kStageBytes + 1024 + (2 * kStages + 2) * 8 + kStagingBytes;
  static_assert(kSharedBytes <= 227 * 1024, "the stages fit an SM's shared memory");
};

// Issues one stage's wgmma group (every k16 step, every 64-row block) and commits it.
template <int kN, int kRowBlocks>
__device__ __forceinline__ void issue_stage(float (&acc)[kRowBlocks][kN / 2], std::uint32_t a_rows,
                                            std::uint32_t b_panels) {
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
#pragma unroll
  for (int h = 0; h < kRowBlocks; ++h) ptx::wgmma_hold(acc[h]);
}

template <int kWidth, int kRowBlocks, int kStages, bool kPingpong, int kPending,
          bool kSectors = false>
__global__ void __launch_bounds__(384, 1)
    pingpong_kernel(cudalabs::Bf16GemmArgs args, const __grid_constant__ CUtensorMap a_map,
                    const __grid_constant__ CUtensorMap b_map, WorkUnits units) {
#if LAB11_HOPPER_DEVICE_CODE
  static_assert(kPingpong || kRowBlocks == 1, "sharing a tile, each consumer has 64 rows");
  using Tile = PingpongTile<kWidth, kPingpong ? kRowBlocks : 2, kStages>;
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  unsigned char* shared = aligned_shared(dynamic_shared);
  const auto stage = [&](int s) { return shared + s * Tile::kStageBytes; };
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(shared + kStages * Tile::kStageBytes);
  std::uint64_t* empty = full + kStages;
  std::uint64_t* turn = empty + kStages;  // consumer c's turn at the ring (pingpong)
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], kPingpong ? 4 : 8);  // the warps that read the stage
    }
    ptx::mbarrier_init(&turn[0], 1);
    ptx::mbarrier_init(&turn[1], 1);
    ptx::fence_barrier_init();
  }
  __syncthreads();
  const int group = threadIdx.x / 128;
  if (group == 0) {
    ptx::set_max_registers<40, false>();
    if (threadIdx.x == 0) {
      int s = 0, phase = 0;
      for (int unit = blockIdx.x; unit < units.count(); unit += gridDim.x) {
        const int2 at =
            grouped_tile(units.tile(unit), units.tiles_m, units.tiles_n, Tile::kGroupRows);
        const int first = units.first_k_block(unit), end = units.end_k_block(unit);
        for (int kt = first; kt < end; ++kt) {
          ptx::mbarrier_wait(&empty[s], phase ^ 1);
          load_stage_tma<Tile::BM, Tile::BN>(stage(s), &full[s], a_map, b_map, at.x * Tile::BM,
                                             at.y * Tile::BN, kt);
          if (++s == kStages) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    }
  } else {
    ptx::set_max_registers<232, true>();
    const int consumer = __shfl_sync(0xffffffffu, group, 0) - 1, lane = threadIdx.x % 32;
    float* staging = reinterpret_cast<float*>(turn + 2) +
                     (threadIdx.x / 32 - 4) * (EpilogueStaging::kWarpBytes / sizeof(float));
    const int store_width = staged_store_width(args);
    int s = 0, phase = 0, local = 0, own = 0;
    for (int unit = blockIdx.x; unit < units.count(); unit += gridDim.x, ++local) {
      const int first = units.first_k_block(unit), end = units.end_k_block(unit);
      if (kPingpong && (local & 1) != consumer) {  // the other consumer's: skip its stages
        s += end - first;
        phase ^= (s / kStages) & 1;
        s %= kStages;
        continue;
      }
      if (kPingpong) {  // the other consumer has waited on the unit before this one's stages
        if (consumer == 1) ptx::mbarrier_wait(&turn[1], own & 1);
        if (consumer == 0 && own > 0) ptx::mbarrier_wait(&turn[0], (own - 1) & 1);
        ++own;
      }
      const int2 at =
          grouped_tile(units.tile(unit), units.tiles_m, units.tiles_n, Tile::kGroupRows);
      float acc[kRowBlocks][Tile::BN / 2];
#pragma unroll
      for (int h = 0; h < kRowBlocks; ++h) zero(acc[h]);
      const std::uint32_t a_offset = kPingpong ? 0 : consumer * 64 * SwizzledTile::kRowBytes;
      int held = -1;  // the stage whose group may still be in flight
      for (int kt = first; kt < end; ++kt) {
        ptx::mbarrier_wait(&full[s], phase);
        const std::uint32_t base = ptx::shared_address(stage(s));
        issue_stage<Tile::BN>(acc, base + a_offset, base + Tile::BM * SwizzledTile::kRowBytes);
        ptx::wgmma_wait<kPending>();
#pragma unroll
        for (int h = 0; h < kRowBlocks; ++h) ptx::wgmma_hold(acc[h]);
        if (kPending == 0) {
          if (lane == 0) ptx::mbarrier_arrive(&empty[s]);
        } else {
          if (held >= 0 && lane == 0) ptx::mbarrier_arrive(&empty[held]);
          held = s;
        }
        if (++s == kStages) {
          s = 0;
          phase ^= 1;
        }
      }
      if (kPingpong && threadIdx.x % 128 == 0) ptx::mbarrier_arrive(&turn[1 - consumer]);
      if (kPending != 0) {
        ptx::wgmma_wait<0>();
#pragma unroll
        for (int h = 0; h < kRowBlocks; ++h) ptx::wgmma_hold(acc[h]);
        if (held >= 0 && lane == 0) ptx::mbarrier_arrive(&empty[held]);
      }
      const int col0 = at.y * Tile::BN;
#pragma unroll
      for (int h = 0; h < kRowBlocks; ++h) {
        const int row0 = at.x * Tile::BM + (kPingpong ? 64 * h : 64 * consumer);
        if (kSectors && store_width != 4)  // sector_store11.cuh
          store_warpgroup_tile_sectors<Tile::BN>(args, acc[h], row0, col0, staging);
        else
          store_warpgroup_tile_staged<Tile::BN>(args, acc[h], row0, col0, staging, store_width);
      }
    }
  }
#endif
  (void)args;
  (void)a_map;
  (void)b_map;
  (void)units;
}

// Runs pingpong_kernel on args with K whole, on aligned copies of operands TMA cannot read.
template <int kWidth, int kRowBlocks, int kStages, bool kPingpong, int kPending,
          bool kSectors = false>
void run_pingpong(const cudalabs::Bf16GemmArgs& args, cudaStream_t stream) {
  using Tile = PingpongTile<kWidth, kPingpong ? kRowBlocks : 2, kStages>;
  constexpr auto kernel =
      &pingpong_kernel<kWidth, kRowBlocks, kStages, kPingpong, kPending, kSectors>;
  const WorkUnits units = WorkUnits::of(args.shape(), Tile::BM, Tile::BN, Tile::BK, 1);
  const int blocks = std::min(units.count(), cudalabs::multiprocessor_count());
  const TmaOperands operands(args, stream);
  const cudalabs::Bf16GemmArgs& readable = operands.args();
  const CUtensorMap a_map = bf16_tensor_map(readable.a, args.m, args.k, readable.lda, Tile::BM);
  const CUtensorMap b_map =
      bf16_tensor_map(readable.b, args.k, args.n, readable.ldb, SwizzledTile::BK);
  allow_shared(kernel, Tile::kSharedBytes);
  kernel<<<blocks, Tile::kThreads, Tile::kSharedBytes, stream>>>(readable, a_map, b_map, units);
  CUDA_CHECK_LAUNCH("pingpong_kernel");
}

}  // namespace
}  // namespace lab11
