// Lab 07 solution: the final SIMT SGEMM, in four steps (the core), then the kernels `best` runs
// (the optional challenge, best_kernels.cuh).
//
// Starting point: lab 06's double-buffered 128 x 128 x 8 kernel. On Hopper an SM sub-partition
// issues one warp instruction per cycle and its 32 FP32 lanes retire one FFMA warp instruction per
// cycle, so every instruction that is not an FFMA (a load, an address, a branch) takes a cycle from
// the FFMAs. The steps spend fewer and fewer of them on anything else:
//  1. 128-bit global loads (LDG.E.128): one instruction brings 4 floats of A or B; A lands
//     transposed in shared memory through 4 scalar stores, B through one 128-bit store
//     ([GEMM-BOOK] §2.2).
//  2. Warp tiling: each warp owns a warp tile, and each lane a TM x TN patch made of 4 x 4 pieces
//     spread over it, so that a warp's 128-bit shared loads (LDS.128) touch one contiguous 128-byte
//     row segment (A) or less (B): no bank conflict, and 4 LDS.128 feed 64 FFMAs (8 x 8 patch).
//  3. Shared->register prefetch ([GEMM-BOOK] §2.3): the fragments of step k + 1 are loaded while
//     step k's FFMAs run (two register slots), so no FFMA waits for shared memory.
//  4. cp.async (compute capability 8.0): global -> shared without registers, three stages deep.
// The 128-bit loads need A and B 16-byte aligned with lda and ldb multiples of 4; otherwise the
// launcher picks the scalar instantiation (kVector = false). Partial tiles at any edge load zeros
// and store only inside C. The FFMAs of a step and the stores of C are given (register_patch.cuh).
#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "lab.h"
#include "labs/07_wide_loads/k_slice.cuh"
#include "lane_pieces.cuh"
#include "register_patch.cuh"
#include "tiles.h"

#include <cstdint>

namespace lab07 {
namespace {

// Four consecutive floats of row `row`, columns col .. col + 3, of a rows x cols matrix; zeros
// outside it. One 128-bit load when allowed and entirely inside, scalar loads otherwise.
template <bool kVector>
__device__ __forceinline__ float4 load_four(const float* __restrict__ matrix, int row, int col,
                                            int rows, int cols, int ld) {
  if (kVector && row < rows && col + 3 < cols) {
    return __ldg(reinterpret_cast<const float4*>(matrix + row * ld + col));
  }
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (row < rows) {
    const float* p = matrix + row * ld;
    if (col < cols) v.x = __ldg(p + col);
    if (col + 1 < cols) v.y = __ldg(p + col + 1);
    if (col + 2 < cols) v.z = __ldg(p + col + 2);
    if (col + 3 < cols) v.w = __ldg(p + col + 3);
  }
  return v;
}

// Steps 1 to 3 of the climb: lab 06's prefetch_regs kernel (128 x 128 x 8, 256 threads, 8 x 8
// outputs per thread, two shared buffers) changed one lesson at a time. Each step's thread stages
// one float4 of A and one of B per tile: A's row tid / 2, columns 4 * (tid % 2) ..; B's row tid /
// 32, columns 4 * (tid % 32) ...
struct StagedFloat4s {
  float4 a, b;
};

template <bool kVector>
__device__ __forceinline__ StagedFloat4s load_step_tile(const cudalabs::GemmArgs& args, int row0,
                                                        int col0, int k0) {
  const int tid = threadIdx.x;
  return {load_four<kVector>(args.a, row0 + tid / 2, k0 + tid % 2 * 4, args.m, args.k, args.lda),
          load_four<kVector>(args.b, k0 + tid / 32, col0 + tid % 32 * 4, args.k, args.n, args.ldb)};
}

// A transposed through four scalar stores (the kPadA floats of padding keep them conflict-free), B
// through one 128-bit store.
__device__ __forceinline__ void store_step_tile(const StagedFloat4s& staged,
                                                float (&a_tile)[StepTile::BK][StepTile::BM + kPadA],
                                                float (&b_tile)[StepTile::BK][StepTile::BN]) {
  const int tid = threadIdx.x, m = tid / 2, k = tid % 2 * 4;
  a_tile[k + 0][m] = staged.a.x;
  a_tile[k + 1][m] = staged.a.y;
  a_tile[k + 2][m] = staged.a.z;
  a_tile[k + 3][m] = staged.a.w;
  *reinterpret_cast<float4*>(&b_tile[tid / 32][tid % 32 * 4]) = staged.b;
}

// Step 1, 128-bit global loads: one LDG.128 instead of four LDG.32 for each 4 floats of A or B. The
// rest is lab 06's kernel: each thread owns the 8 x 8 patch at rows 8 * (tid / 16), columns
// 8 * (tid % 16) of the block tile, and reads its fragments from shared memory one float at a time.
template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    wide_loads_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = StepTile::BM, BN = StepTile::BN, BK = StepTile::BK, TM = 8, TN = 8;
  static_assert(StepTile::kThreads == (BM / TM) * (BN / TN) && BM * BK / 4 == StepTile::kThreads &&
                    BK * BN / 4 == StepTile::kThreads,
                "one float4 of A and one of B per thread per tile");
  __shared__ __align__(16) float a_tile[2][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[2][BK][BN];
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int patch_row = threadIdx.x / (BN / TN) * TM, patch_col = threadIdx.x % (BN / TN) * TN;
  const int tiles = (args.k + BK - 1) / BK;

  float acc[TM][TN] = {};
  store_step_tile(load_step_tile<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    StagedFloat4s next{};
    if (t + 1 < tiles) next = load_step_tile<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a_reg[TM], b_reg[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[buffer][k][patch_row + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[buffer][k][patch_col + j];
      outer_product(a_reg, b_reg, acc);
    }
    if (t + 1 < tiles) store_step_tile(next, a_tile[buffer ^ 1], b_tile[buffer ^ 1]);
    __syncthreads();
  }
  store_patch<TM, TN, 4, 4, false>(args, row0 + patch_row, col0 + patch_col, acc);
}

// Step 2, warp tiling: the same loads and stores, but each lane owns 4 x 4 pieces spread over its
// warp's tile (LanePieces, warp_tile.cuh), so that each fragment comes in with conflict-free
// LDS.128 instead of scalar loads with bank conflicts. No prefetch yet: each step's FFMAs wait for
// its fragments.
template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    warp_tiles_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = StepTile::BM, BN = StepTile::BN, BK = StepTile::BK;
  __shared__ __align__(16) float a_tile[2][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[2][BK][BN];
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const LanePieces<StepTile> lane;
  const int tiles = (args.k + BK - 1) / BK;

  float acc[StepTile::TM][StepTile::TN] = {};
  store_step_tile(load_step_tile<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    StagedFloat4s next{};
    if (t + 1 < tiles) next = load_step_tile<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a_frag[StepTile::TM], b_frag[StepTile::TN];
      load_fragments<StepTile>(a_tile[buffer][k], b_tile[buffer][k], lane, a_frag, b_frag);
      outer_product(a_frag, b_frag, acc);
    }
    if (t + 1 < tiles) store_step_tile(next, a_tile[buffer ^ 1], b_tile[buffer ^ 1]);
    __syncthreads();
  }
  store_lane_patch<StepTile, false>(args, row0, col0, lane, acc);
}

// Step 3, the shared->register prefetch: step 2 with two register slots of fragments. While step
// k's FFMAs run on one slot, step k + 1's fragments load into the other; at the last k of a tile,
// the next tile's first fragments, after the barrier that makes it visible. No FFMA then waits for
// a shared load. (BK must be even, so that the next tile's step 0 lands in slot 0.)
template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    prefetch_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = StepTile::BM, BN = StepTile::BN, BK = StepTile::BK;
  static_assert(BK % 2 == 0, "the fragment slots alternate, so BK must be even");
  __shared__ __align__(16) float a_tile[2][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[2][BK][BN];
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const LanePieces<StepTile> lane;
  const int tiles = (args.k + BK - 1) / BK;

  float acc[StepTile::TM][StepTile::TN] = {};
  float a_frag[2][StepTile::TM], b_frag[2][StepTile::TN];
  store_step_tile(load_step_tile<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  load_fragments<StepTile>(a_tile[0][0], b_tile[0][0], lane, a_frag[0], b_frag[0]);
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    StagedFloat4s next{};
    if (t + 1 < tiles) next = load_step_tile<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const int slot = k & 1;
      if (k + 1 < BK) {
        load_fragments<StepTile>(a_tile[buffer][k + 1], b_tile[buffer][k + 1], lane,
                                 a_frag[slot ^ 1], b_frag[slot ^ 1]);
      } else if (t + 1 < tiles) {
        // The other buffer was last read before the previous barrier: refill it, and one
        // barrier makes it visible to everyone.
        store_step_tile(next, a_tile[buffer ^ 1], b_tile[buffer ^ 1]);
        __syncthreads();
        load_fragments<StepTile>(a_tile[buffer ^ 1][0], b_tile[buffer ^ 1][0], lane,
                                 a_frag[slot ^ 1], b_frag[slot ^ 1]);
      }
      outer_product(a_frag[slot], b_frag[slot], acc);
    }
  }
  store_lane_patch<StepTile, false>(args, row0, col0, lane, acc);
}

// Step 4, the cp.async kernel (compute capability 8.0+; a plain copy elsewhere): global -> shared
// directly, kStages tiles deep, in dynamic shared memory. A lands transposed through 4-byte copies;
// B through 16-byte copies when kVector allows. No registers hold tiles in flight, which frees them
// for the accumulators.
template <class Tile, bool kVector, int kStages>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    async_wide_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, TM = Tile::TM, TN = Tile::TN;
  constexpr int kThreads = Tile::kThreads;
  constexpr int kAVectors = BM * BK / 4 / kThreads;
  constexpr int kBVectors = BK * BN / 4 / kThreads;
  constexpr int kAStride = BM + kPadA;
  constexpr int kStageFloats = BK * kAStride + BK * BN;
  static_assert(BK % 2 == 0, "the fragment slots alternate, so BK must be even");

  extern __shared__ float4 shared_storage[];
  float* const shared = reinterpret_cast<float*>(shared_storage);
  auto a_stage = [&](int stage) { return shared + stage * kStageFloats; };  // [BK][kAStride]
  auto b_stage = [&](int stage) {
    return shared + stage * kStageFloats + BK * kAStride;
  };  // [BK][BN]

  const int2 origin = swizzled_tile_origin<Tile>(args.m, args.n, static_cast<int>(blockIdx.x));
  const int row0 = origin.x, col0 = origin.y, tid = threadIdx.x;
  const LanePieces<Tile> lane;
  const int tiles = (args.k + BK - 1) / BK;

  // Starts the copies of tile t (if it exists) into stage t % kStages and commits them as one
  // group.
  auto start_tile = [&](int t) {
    if (t < tiles) {
      float* a_dst = a_stage(t % kStages);
      float* b_dst = b_stage(t % kStages);
      const int k0 = t * BK;
#pragma unroll
      for (int r = 0; r < kAVectors; ++r) {
        const int v = tid + r * kThreads;
        const int m = v / (BK / 4), k = v % (BK / 4) * 4;
        const int row = row0 + m;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool inside = row < args.m && k0 + k + q < args.k;
          cudalabs::async_copy_4(a_dst + (k + q) * kAStride + m,
                                 inside ? args.a + row * args.lda + k0 + k + q : args.a, inside);
        }
      }
#pragma unroll
      for (int r = 0; r < kBVectors; ++r) {
        const int v = tid + r * kThreads;
        const int k = v / (BN / 4), n = v % (BN / 4) * 4;
        const int row = k0 + k, col = col0 + n;
        float* dst = b_dst + k * BN + n;
        if (kVector && row < args.k && col + 3 < args.n) {
          cudalabs::async_copy_16(dst, args.b + row * args.ldb + col, true);
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const bool inside = row < args.k && col + q < args.n;
            cudalabs::async_copy_4(dst + q, inside ? args.b + row * args.ldb + col + q : args.b,
                                   inside);
          }
        }
      }
    }
    cudalabs::async_copy_commit();
  };

  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];
#pragma unroll
  for (int t = 0; t < kStages; ++t) start_tile(t);
  cudalabs::async_copy_wait<kStages - 1>();  // tile 0 has landed
  __syncthreads();
  load_fragments<Tile>(a_stage(0), b_stage(0), lane, a_frag[0], b_frag[0]);
  for (int t = 0; t < tiles; ++t) {
    const int stage = t % kStages;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const int slot = k & 1;
      if (k + 1 < BK) {
        load_fragments<Tile>(a_stage(stage) + (k + 1) * kAStride, b_stage(stage) + (k + 1) * BN,
                             lane, a_frag[slot ^ 1], b_frag[slot ^ 1]);
      } else {
        // Tile t + 1 has landed for this thread; after the barrier, for everyone, and nobody reads
        // stage t % kStages any more, so it is refilled with tile t + kStages.
        cudalabs::async_copy_wait<kStages - 2>();
        __syncthreads();
        start_tile(t + kStages);
        if (t + 1 < tiles) {
          const int next = (t + 1) % kStages;
          load_fragments<Tile>(a_stage(next), b_stage(next), lane, a_frag[slot ^ 1],
                               b_frag[slot ^ 1]);
        }
      }
      outer_product(a_frag[slot], b_frag[slot], acc);
    }
  }
  store_lane_patch<Tile, true>(args, row0, col0, lane, acc);
}

}  // namespace
}  // namespace lab07

// The optional challenge: the kernels `best` runs.
#include "best_kernels.cuh"

#include "launch.cuh"
