// Lab 07 solution: the final SIMT SGEMM in four steps (the core), then, after the marker, the
// kernels `best` runs (the optional challenge, best_kernels.cuh).
//
// Starting point: lab 06's double-buffered 128 x 128 x 8 kernel. On Hopper an SM sub-partition
// issues one warp instruction per cycle and its 32 FP32 lanes retire one FFMA warp instruction per
// cycle, so every instruction that is not an FFMA (a load, an address, a branch) takes a cycle from
// the FFMAs. Each step adds one lesson, written once as a helper that the later steps call:
//  1. 128-bit global loads (LDG.E.128): load_four brings 4 floats of A or B in one instruction
//     (scalar loads where it may not); load_tile_share and store_tile_share stage a thread's share
//     of a tile, A transposed through 4 scalar stores, B through one 128-bit store ([GEMM-BOOK]
//     §2.2).
//  2. Warp tiling (lane_pieces.cuh): each lane owns a TM x TN patch made of 4 x 4 pieces spread
//     over its warp's tile, so that a warp's 128-bit shared loads (LDS.128) touch one contiguous
//     128-byte row segment (A) or less (B): no bank conflict, and 4 LDS.128 feed 64 FFMAs.
//  3. Shared->register prefetch ([GEMM-BOOK] §2.3): multiply_tile loads step k + 1's fragments
//     while step k's FFMAs run (two register slots), so no FFMA waits for shared memory.
//  4. cp.async (compute capability 8.0): copy_four_async moves tiles global -> shared without
//     registers, three stages deep; the tile loop is step 3's multiply_tile.
// The 128-bit loads need A and B 16-byte aligned with lda and ldb multiples of 4; otherwise the
// launcher picks the scalar instantiation (kVector = false). Partial tiles at any edge load zeros
// and store only inside C. The FFMAs of a step and the stores of C are given (register_patch.cuh),
// and so is the shared-memory layout (shared_tiles.cuh).
#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "lab.h"
#include "labs/07_wide_loads/k_slice.cuh"
#include "labs/07_wide_loads/register_patch.cuh"
#include "labs/07_wide_loads/shared_tiles.cuh"
#include "labs/07_wide_loads/tiles.h"
#include "lane_pieces.cuh"

namespace lab07 {
namespace {

// ---- The core: steps 1 to 4 ----

// Step 1. Four consecutive floats of row `row`, columns col .. col + 3, of a rows x cols matrix;
// zeros outside it. One 128-bit load when kVector and the four lie inside the matrix, scalar loads
// otherwise.
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

// Step 1. A thread's share of a StepTile, in registers between its global loads and its shared
// stores: one float4 of A (row tid / 2, columns 4 * (tid % 2) ..) and one of B (row tid / 32,
// columns 4 * (tid % 32) ..).
struct StagedFloat4s {
  float4 a, b;
};

// Step 1. This thread's share of the tile whose corner is (row0, k0) in A and (k0, col0) in B.
template <bool kVector>
__device__ __forceinline__ StagedFloat4s load_tile_share(const cudalabs::GemmArgs& args, int row0,
                                                         int col0, int k0) {
  const int tid = threadIdx.x;
  return {load_four<kVector>(args.a, row0 + tid / 2, k0 + tid % 2 * 4, args.m, args.k, args.lda),
          load_four<kVector>(args.b, k0 + tid / 32, col0 + tid % 32 * 4, args.k, args.n, args.ldb)};
}

// Step 1. The share into one shared buffer: A transposed through four scalar stores (the kPadA
// floats of padding keep them conflict-free), B through one 128-bit store.
template <class ATile, class BTile>
__device__ __forceinline__ void store_tile_share(const StagedFloat4s& staged, ATile& a_tile,
                                                 BTile& b_tile) {
  const int tid = threadIdx.x, m = tid / 2, k = tid % 2 * 4;
  a_tile[k + 0][m] = staged.a.x;
  a_tile[k + 1][m] = staged.a.y;
  a_tile[k + 2][m] = staged.a.z;
  a_tile[k + 3][m] = staged.a.w;
  *reinterpret_cast<float4*>(&b_tile[tid / 32][tid % 32 * 4]) = staged.b;
}

// Step 2's helpers (LanePieces, load_pieces, load_fragments, store_lane_patch) are in
// lane_pieces.cuh, which lab 09's solution shares.

// Step 3, reused by step 4. The BK steps of one tile (a_tile[k], b_tile[k]: row k of its shared A
// tile, transposed, and of its B tile): step k's fragments are in register slot k % 2 (loaded
// before), and step k + 1's go into the other slot before step k's FFMAs run. At the last step,
// next_tile(a_frag[0], b_frag[0]) brings in the next tile, if there is one, and loads its step-0
// fragments into slot 0. (BK is even.) Steps 3 and 4 differ only in their next_tile.
template <class Tile, class ATile, class BTile, class NextTile>
__device__ __forceinline__ void multiply_tile(const ATile& a_tile, const BTile& b_tile,
                                              const LanePieces<Tile>& lane,
                                              float (&a_frag)[2][Tile::TM],
                                              float (&b_frag)[2][Tile::TN],
                                              float (&acc)[Tile::TM][Tile::TN],
                                              NextTile next_tile) {
  static_assert(Tile::BK % 2 == 0, "the fragment slots alternate, so BK must be even");
#pragma unroll
  for (int k = 0; k < Tile::BK; ++k) {
    const int slot = k & 1;
    if (k + 1 < Tile::BK) {
      load_fragments<Tile>(a_tile[k + 1], b_tile[k + 1], lane, a_frag[slot ^ 1], b_frag[slot ^ 1]);
    } else {
      next_tile(a_frag[slot ^ 1], b_frag[slot ^ 1]);
    }
    outer_product(a_frag[slot], b_frag[slot], acc);
  }
}

// Step 4. load_four's cp.async form: starts copying the four floats of row `row`, columns col ..
// col + 3, to to[0], to[kStride], to[2 kStride], to[3 kStride] in shared memory; zeros outside the
// matrix. One 16-byte copy when kVector, the four are contiguous in shared memory and lie inside
// the matrix; four 4-byte copies otherwise.
template <bool kVector, int kStride>
__device__ __forceinline__ void copy_four_async(float* to, const float* matrix, int row, int col,
                                                int rows, int cols, int ld) {
  if (kVector && kStride == 1 && row < rows && col + 3 < cols) {
    cudalabs::async_copy_16(to, matrix + row * ld + col, true);
    return;
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const bool inside = row < rows && col + q < cols;
    cudalabs::async_copy_4(to + q * kStride, inside ? matrix + row * ld + col + q : matrix, inside);
  }
}

// Step 1, 128-bit global loads: lab 06's kernel, its tiles staged by load_tile_share and
// store_tile_share. Each thread owns the 8 x 8 patch at rows 8 * (tid / 16), columns 8 * (tid % 16)
// of the block tile, and reads its fragments from shared memory one float at a time.
template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    wide_loads_kernel(cudalabs::GemmArgs args) {
  constexpr int BK = StepTile::BK, TM = 8, TN = 8;
  __shared__ __align__(16) StepATile a_tile[2];
  __shared__ __align__(16) StepBTile b_tile[2];
  const int row0 = blockIdx.y * StepTile::BM, col0 = blockIdx.x * StepTile::BN;
  const int patch_row = threadIdx.x / 16 * TM, patch_col = threadIdx.x % 16 * TN;  // 16 x 16
  const int tiles = (args.k + BK - 1) / BK;

  float acc[TM][TN] = {};
  store_tile_share(load_tile_share<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    StagedFloat4s next{};
    if (t + 1 < tiles) next = load_tile_share<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a_reg[TM], b_reg[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[buffer][k][patch_row + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[buffer][k][patch_col + j];
      outer_product(a_reg, b_reg, acc);
    }
    if (t + 1 < tiles) store_tile_share(next, a_tile[buffer ^ 1], b_tile[buffer ^ 1]);
    __syncthreads();
  }
  store_patch<TM, TN, 4, 4, false>(args, row0 + patch_row, col0 + patch_col, acc);
}

// Step 2, warp tiling: step 1's tile loop, but each lane owns 4 x 4 pieces spread over its warp's
// tile (LanePieces), so that each fragment comes in with conflict-free LDS.128 (load_fragments)
// instead of scalar loads with bank conflicts. No prefetch yet: each step's FFMAs wait for its
// fragments.
template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    warp_tiles_kernel(cudalabs::GemmArgs args) {
  constexpr int BK = StepTile::BK, TM = StepTile::TM, TN = StepTile::TN;
  __shared__ __align__(16) StepATile a_tile[2];
  __shared__ __align__(16) StepBTile b_tile[2];
  const int row0 = blockIdx.y * StepTile::BM, col0 = blockIdx.x * StepTile::BN;
  const LanePieces<StepTile> lane;
  const int tiles = (args.k + BK - 1) / BK;

  float acc[TM][TN] = {};
  store_tile_share(load_tile_share<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    StagedFloat4s next{};
    if (t + 1 < tiles) next = load_tile_share<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a_frag[TM], b_frag[TN];
      load_fragments<StepTile>(a_tile[buffer][k], b_tile[buffer][k], lane, a_frag, b_frag);
      outer_product(a_frag, b_frag, acc);
    }
    if (t + 1 < tiles) store_tile_share(next, a_tile[buffer ^ 1], b_tile[buffer ^ 1]);
    __syncthreads();
  }
  store_lane_patch<StepTile, false>(args, row0, col0, lane, acc);
}

// Step 3, the shared->register prefetch: step 2 with its tiles multiplied by multiply_tile. At the
// last step of a tile the staged next tile goes into the other buffer (last read before the
// previous barrier), and one barrier makes it visible to everyone; the barrier at the end of the
// tile loop is gone.
template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    prefetch_kernel(cudalabs::GemmArgs args) {
  constexpr int BK = StepTile::BK, TM = StepTile::TM, TN = StepTile::TN;
  __shared__ __align__(16) StepATile a_tile[2];
  __shared__ __align__(16) StepBTile b_tile[2];
  const int row0 = blockIdx.y * StepTile::BM, col0 = blockIdx.x * StepTile::BN;
  const LanePieces<StepTile> lane;
  const int tiles = (args.k + BK - 1) / BK;

  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];
  store_tile_share(load_tile_share<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  load_fragments<StepTile>(a_tile[0][0], b_tile[0][0], lane, a_frag[0], b_frag[0]);
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    StagedFloat4s next{};
    if (t + 1 < tiles) next = load_tile_share<kVector>(args, row0, col0, (t + 1) * BK);
    // At the last step: the next tile into the other buffer, then its step-0 fragments.
    auto next_tile = [&](float(&a)[TM], float(&b)[TN]) {
      if (t + 1 < tiles) {
        store_tile_share(next, a_tile[buffer ^ 1], b_tile[buffer ^ 1]);
        __syncthreads();
        load_fragments<StepTile>(a_tile[buffer ^ 1][0], b_tile[buffer ^ 1][0], lane, a, b);
      }
    };
    multiply_tile<StepTile>(a_tile[buffer], b_tile[buffer], lane, a_frag, b_frag, acc, next_tile);
  }
  store_lane_patch<StepTile, false>(args, row0, col0, lane, acc);
}

// Step 4, cp.async (compute capability 8.0+; a plain copy elsewhere): step 3 on AsyncTile with the
// tiles copied global -> shared directly, kStages tiles in flight (AsyncStages), A transposed
// through 4-byte copies, B through 16-byte copies when kVector allows. No register holds a tile in
// flight, which frees them for the accumulators.
template <class Tile, bool kVector, int kStages>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    async_wide_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int BK = Tile::BK, BN = Tile::BN, kThreads = Tile::kThreads;
  const auto stages = AsyncStages<Tile, kStages>::in_dynamic_shared_memory();
  const int2 origin = swizzled_tile_origin<Tile>(args.m, args.n, static_cast<int>(blockIdx.x));
  const int row0 = origin.x, col0 = origin.y, tid = threadIdx.x;
  const LanePieces<Tile> lane;
  const int tiles = (args.k + BK - 1) / BK;

  // Starts the copies of tile t (if it exists) into its stage, committed as one group (empty past
  // the last tile, so that every wait counts groups the same way).
  auto start_tile = [&](int t) {
    if (t < tiles) {
#pragma unroll
      for (int r = 0; r < Tile::BM * BK / 4 / kThreads; ++r) {
        const int v = tid + r * kThreads, m = v / (BK / 4), k = v % (BK / 4) * 4;
        copy_four_async<false, Tile::BM + kPadA>(&stages.a(t)[k][m], args.a, row0 + m, t * BK + k,
                                                 args.m, args.k, args.lda);
      }
#pragma unroll
      for (int r = 0; r < BK * BN / 4 / kThreads; ++r) {
        const int v = tid + r * kThreads, k = v / (BN / 4), n = v % (BN / 4) * 4;
        copy_four_async<kVector, 1>(&stages.b(t)[k][n], args.b, t * BK + k, col0 + n, args.k,
                                    args.n, args.ldb);
      }
    }
    cudalabs::async_copy_commit();
  };

  float acc[Tile::TM][Tile::TN] = {};
  float a_frag[2][Tile::TM], b_frag[2][Tile::TN];
#pragma unroll
  for (int t = 0; t < kStages; ++t) start_tile(t);
  cudalabs::async_copy_wait<kStages - 1>();  // tile 0 has landed
  __syncthreads();
  load_fragments<Tile>(stages.a(0)[0], stages.b(0)[0], lane, a_frag[0], b_frag[0]);
  for (int t = 0; t < tiles; ++t) {
    // At the last step: wait until tile t + 1 has landed (for this thread; after the barrier, for
    // everyone, and nobody reads tile t's stage any more: it takes tile t + kStages), then load
    // tile t + 1's step-0 fragments.
    auto next_tile = [&](float(&a)[Tile::TM], float(&b)[Tile::TN]) {
      cudalabs::async_copy_wait<kStages - 2>();
      __syncthreads();
      start_tile(t + kStages);
      if (t + 1 < tiles) load_fragments<Tile>(stages.a(t + 1)[0], stages.b(t + 1)[0], lane, a, b);
    };
    multiply_tile<Tile>(stages.a(t), stages.b(t), lane, a_frag, b_frag, acc, next_tile);
  }
  store_lane_patch<Tile, true>(args, row0, col0, lane, acc);
}

}  // namespace
}  // namespace lab07

// ---- The optional challenge: the kernels `best` runs (best_kernels.cuh) ----
#include "best_kernels.cuh"

#include "launch.cuh"
