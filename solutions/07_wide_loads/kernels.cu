// Lab 07 solution: the final SIMT SGEMM.
//
// Starting point: lab 06's double-buffered 128 x 128 x 8 kernel. On Hopper an SM sub-partition issues
// one warp instruction per cycle and its 32 FP32 lanes retire one FFMA warp instruction per cycle, so
// every instruction that is not an FFMA (a load, an address, a branch) takes a cycle from the FFMAs.
// This kernel spends as few as it can on anything else:
//  - 128-bit global loads (LDG.E.128): one instruction brings 4 floats of A or B; A lands transposed
//    in shared memory through 4 scalar stores, B through one 128-bit store (seed 003 §2.2).
//  - Warp tiling: each warp owns a warp tile, and each lane a TM x TN patch made of 4 x 4 pieces
//    spread over it, so that a warp's 128-bit shared loads (LDS.128) touch one contiguous 128-byte
//    row segment (A) or less (B): no bank conflict, and 4 LDS.128 feed 64 FFMAs (8 x 8 patch).
//  - Shared->register prefetch (seed 003 §2.3): the fragments of step k + 1 are loaded while step
//    k's FFMAs run (two register slots), so no FFMA waits for shared memory.
//  - Double-buffered shared memory with a global->register prefetch (lab 06): one barrier per tile.
//  - A block swizzle: blocks walk down groups of kGroupRows block rows, so that the panels of A and B
//    they share are read from L2 rather than DRAM.
//  - The alpha/beta update and the stores of C also go 128 bits at a time.
// The 128-bit paths need 16-byte aligned matrices and leading dimensions that are multiples of 4;
// otherwise the launcher picks the scalar instantiation (kVector = false) of the same kernel. Partial
// tiles at any edge load zeros and store only inside C.
#include "common/gemm_device.cuh"
#include "lab.h"
#include "tiles.h"

namespace lab07 {
namespace {

// Four consecutive floats of row `row`, columns col .. col + 3, of a rows x cols matrix; zeros
// outside it. One 128-bit load when allowed and entirely inside, scalar loads otherwise.
template <bool kVector>
__device__ __forceinline__ float4 load_four(const float* __restrict__ matrix, int row, int col, int rows, int cols,
                                            int ld) {
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

template <class Tile, bool kVector>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks) wide_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, TM = Tile::TM, TN = Tile::TN;
  constexpr int kThreads = Tile::kThreads;
  constexpr int kAVectors = BM * BK / 4 / kThreads;  // float4 loads of A per thread per tile
  constexpr int kBVectors = BK * BN / 4 / kThreads;
  static_assert(BK % 2 == 0, "the fragment slots alternate, so BK must be even");

  __shared__ __align__(16) float a_tile[2][BK][BM + kPadA];  // A transposed: a_tile[buffer][k][m]
  __shared__ __align__(16) float b_tile[2][BK][BN];

  // Block swizzle: block b covers tile (tile_m, tile_n), walking down kGroupRows block rows first.
  const int tiles_m = (args.m + BM - 1) / BM, tiles_n = (args.n + BN - 1) / BN;
  const int blocks_per_group = kGroupRows * tiles_n;
  const int first_tile_m = static_cast<int>(blockIdx.x) / blocks_per_group * kGroupRows;
  const int group_rows = min(tiles_m - first_tile_m, kGroupRows);
  const int in_group = static_cast<int>(blockIdx.x) % blocks_per_group;
  const int row0 = (first_tile_m + in_group % group_rows) * BM;
  const int col0 = (in_group / group_rows) * BN;

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / Tile::WARPS_N, warp_n = warp % Tile::WARPS_N;
  const int lane_m = lane / Tile::LANES_N, lane_n = lane % Tile::LANES_N;
  // This lane's first 4 x 4 piece in the block tile; the others follow every LANES_M * 4 rows and
  // LANES_N * 4 columns.
  const int piece_row = warp_m * Tile::WM + lane_m * 4;
  const int piece_col = warp_n * Tile::WN + lane_n * 4;

  float4 a_staged[kAVectors], b_staged[kBVectors];
  auto load_tile = [&](int k0) {
#pragma unroll
    for (int r = 0; r < kAVectors; ++r) {
      const int v = tid + r * kThreads;
      a_staged[r] = load_four<kVector>(args.a, row0 + v / (BK / 4), k0 + v % (BK / 4) * 4, args.m, args.k, args.lda);
    }
#pragma unroll
    for (int r = 0; r < kBVectors; ++r) {
      const int v = tid + r * kThreads;
      b_staged[r] = load_four<kVector>(args.b, k0 + v / (BN / 4), col0 + v % (BN / 4) * 4, args.k, args.n, args.ldb);
    }
  };
  auto store_tile = [&](int buffer) {
#pragma unroll
    for (int r = 0; r < kAVectors; ++r) {
      const int v = tid + r * kThreads;
      const int m = v / (BK / 4), k = v % (BK / 4) * 4;
      a_tile[buffer][k + 0][m] = a_staged[r].x;
      a_tile[buffer][k + 1][m] = a_staged[r].y;
      a_tile[buffer][k + 2][m] = a_staged[r].z;
      a_tile[buffer][k + 3][m] = a_staged[r].w;
    }
#pragma unroll
    for (int r = 0; r < kBVectors; ++r) {
      const int v = tid + r * kThreads;
      *reinterpret_cast<float4*>(&b_tile[buffer][v / (BN / 4)][v % (BN / 4) * 4]) = b_staged[r];
    }
  };

  float a_frag[2][TM], b_frag[2][TN];
  auto load_fragments = [&](int buffer, int k, int slot) {
#pragma unroll
    for (int g = 0; g < TM / 4; ++g) {
      const float4 v = *reinterpret_cast<const float4*>(&a_tile[buffer][k][piece_row + g * Tile::LANES_M * 4]);
      a_frag[slot][4 * g + 0] = v.x;
      a_frag[slot][4 * g + 1] = v.y;
      a_frag[slot][4 * g + 2] = v.z;
      a_frag[slot][4 * g + 3] = v.w;
    }
#pragma unroll
    for (int h = 0; h < TN / 4; ++h) {
      const float4 v = *reinterpret_cast<const float4*>(&b_tile[buffer][k][piece_col + h * Tile::LANES_N * 4]);
      b_frag[slot][4 * h + 0] = v.x;
      b_frag[slot][4 * h + 1] = v.y;
      b_frag[slot][4 * h + 2] = v.z;
      b_frag[slot][4 * h + 3] = v.w;
    }
  };

  float acc[TM][TN] = {};
  const int tiles = (args.k + BK - 1) / BK;
  load_tile(0);
  store_tile(0);
  __syncthreads();
  load_fragments(0, 0, 0);
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    const bool has_next = t + 1 < tiles;
    if (has_next) load_tile((t + 1) * BK);  // global loads in flight during this tile's FFMAs
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const int slot = k & 1;
      if (k + 1 < BK) {
        load_fragments(buffer, k + 1, slot ^ 1);
      } else {
        // The other buffer was last read before the previous barrier: refill it, then one barrier
        // makes it visible, and step 0 of the next tile can be prefetched from it.
        if (has_next) store_tile(buffer ^ 1);
        __syncthreads();
        if (has_next) load_fragments(buffer ^ 1, 0, slot ^ 1);
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[slot][i], b_frag[slot][j], acc[i][j]);
    }
  }

  // C = alpha * acc + beta * C, four columns at a time.
#pragma unroll
  for (int g = 0; g < TM / 4; ++g) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row = row0 + piece_row + g * Tile::LANES_M * 4 + r;
      if (row >= args.m) continue;
#pragma unroll
      for (int h = 0; h < TN / 4; ++h) {
        const int col = col0 + piece_col + h * Tile::LANES_N * 4;
        const float* values = &acc[4 * g + r][4 * h];
        float* c = args.c + row * args.ldc + col;
        if (kVector && col + 3 < args.n) {
          float4 out = make_float4(args.alpha * values[0], args.alpha * values[1], args.alpha * values[2],
                                   args.alpha * values[3]);
          if (args.beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4*>(c);
            out = make_float4(fmaf(args.beta, old.x, out.x), fmaf(args.beta, old.y, out.y),
                              fmaf(args.beta, old.z, out.z), fmaf(args.beta, old.w, out.w));
          }
          *reinterpret_cast<float4*>(c) = out;
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            if (col + q < args.n) cudalabs::store_gemm_result(c + q, values[q], args.alpha, args.beta);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace lab07

#include "launch.cuh"
