// Lab 07 solution, the optional challenge: the kernels `best` runs (BestTiles, tiles.h).
//
// wide_gemm_kernel is step 3 polished for any TileShape, everything that is not an FFMA taken out
// of the loop:
//  - the tile loop written once per shared buffer (warp_tile.cuh's multiply_staged_tiles), so that
//    every shared address is a base register plus a constant, with no buffer arithmetic;
//  - plain loads (128-bit when kVector) with no bounds tests for every tile but the last, edge
//    blocks included: a row of A below C's last row reads the last row instead, a float4 of B right
//    of C's last column the float4 that holds that column (clamped, never tested);
//  - the block swizzle of step 4 (k_slice.cuh's swizzled_tile_origin);
//  - the alpha/beta update and the stores of C 128 bits at a time where C allows;
//  - __launch_bounds__(kThreads, kMinBlocks), the register budget of the blocks per SM the tile
//    is made for;
//  - its body computes one tile of a GEMM, and the given for_each_tile_of_block (k_slice.cuh)
//    calls it with the block's work: the whole of K, a slice (split-K) or pieces (stream-K).
// narrow_gemm_kernel (narrow_kernel.cuh) is a kernel of its own for a C a few columns wide, which
// wastes most of any tile.
#pragma once

#include "row_loads.cuh"
#include "warp_tile.cuh"

#include <cstdint>

namespace lab07 {
namespace {

// C = alpha * acc + beta * C for the lane's pieces where C's rows are not 16-byte aligned (ldc % 4
// != 0, or C off 16 bytes), 128 bits at a time all the same: element by element, a row's stores
// take four times the instructions and write each 32-byte sector in pieces (short K ran at
// 0.32-0.57 of cuBLAS with N % 4 != 0 against 1.27 with N % 4 == 0, the same kernel). A row of a
// warp's pieces is a run of consecutive columns (the lanes of a row group side by side, LANES_N * 4
// columns a piece, TN / 4 pieces), so each lane stores the aligned float4 that starts at its first
// column past a 16-byte boundary, `d` = 0-3 columns in: its last 4 - d values and the next lane's
// first d (a shuffle; the run's last lane takes them from the first lane's next piece). What no
// aligned float4 of the warp covers goes out element by element: the warp's first d columns (its
// first lane) and the part of its last chunk that is its own (the chunk's rest is the next warp's
// columns). Every element of the warp's columns inside C is stored once.
template <class Tile>
__device__ __forceinline__ void store_lane_patch_shifted(const cudalabs::GemmArgs& args, int row0,
                                                         int col0, const LanePieces<Tile>& lane,
                                                         const float (&acc)[Tile::TM][Tile::TN]) {
  constexpr int kPieceRows = Tile::LANES_M * 4, kPieceCols = Tile::LANES_N * 4;
  constexpr int kPieces = Tile::TN / 4;  // pieces along a row, each kPieceCols apart
  const int lane_id = static_cast<int>(threadIdx.x % 32);
  const bool first_in_row = lane_id % Tile::LANES_N == 0;
  const bool last_in_row = lane_id % Tile::LANES_N == Tile::LANES_N - 1;
  const int next_lane = last_in_row ? lane_id - (Tile::LANES_N - 1) : lane_id + 1;
#pragma unroll
  for (int g = 0; g < Tile::TM / 4; ++g) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row = row0 + lane.row + g * kPieceRows + r;
      const float* values = acc[4 * g + r];
      // Every lane shuffles (rows past C's last included): the shuffles take the whole warp.
      float next[kPieces][4];
#pragma unroll
      for (int h = 0; h < kPieces; ++h) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float same_piece = __shfl_sync(0xFFFFFFFFu, values[4 * h + q], next_lane);
          const float next_piece =
              h + 1 < kPieces ? __shfl_sync(0xFFFFFFFFu, values[4 * (h + 1) + q], next_lane) : 0.0f;
          next[h][q] = last_in_row ? next_piece : same_piece;
        }
      }
      if (row >= args.m) continue;
      float* c_row = args.c + static_cast<long long>(row) * args.ldc;
      // Columns are multiples of 4 here, so every piece of the row starts `d` floats before a
      // 16-byte boundary.
      const int d = (4 - static_cast<int>(reinterpret_cast<std::uintptr_t>(c_row) >> 2 & 3)) & 3;
#pragma unroll
      for (int h = 0; h < kPieces; ++h) {
        const int col = col0 + lane.col + h * kPieceCols;
        if (h == 0 && first_in_row) {
#pragma unroll
          for (int q = 0; q < 3; ++q) {
            if (q < d && col + q < args.n)
              cudalabs::store_gemm_result(c_row + col + q, values[q], args.alpha, args.beta);
          }
        }
        const bool chunk_is_ours = !(last_in_row && h + 1 == kPieces) || d == 0;
        // The chunk is values d..3 of this piece, then next[h][0 .. d - 1]: selects, not a
        // runtime index (which would put acc in local memory).
        float window[8], chunk[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          window[q] = values[4 * h + q];
          window[4 + q] = next[h][q];
        }
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          chunk[q] = window[q];
#pragma unroll
          for (int shift = 1; shift < 4; ++shift)
            chunk[q] = d == shift ? window[q + shift] : chunk[q];
        }
        if (chunk_is_ours && col + d + 3 < args.n) {
          cudalabs::store_gemm_result4(c_row + col + d,
                                       make_float4(chunk[0], chunk[1], chunk[2], chunk[3]),
                                       args.alpha, args.beta);
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            if (col + d + q < args.n && (chunk_is_ours || q < 4 - d))
              cudalabs::store_gemm_result(c_row + col + d + q, chunk[q], args.alpha, args.beta);
          }
        }
      }
    }
  }
}

// The register-staged kernel: global -> registers -> shared, two shared buffers. Its state lives in
// this object so that the tile loop (warp_tile.cuh, shared with lab 09) can be written once per
// shared buffer (kBuffer a compile-time 0 or 1): every shared-memory address is then a base
// register plus a constant, and the loop carries no buffer arithmetic or per-tile branches
// (measured: 4 % of the issue slots on the H100). The block loads its tiles; the loop stores and
// multiplies them.
template <class Tile, bool kVector>
struct RegisterStagedBlock {
  static constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, TM = Tile::TM, TN = Tile::TN;
  static constexpr int kThreads = Tile::kThreads;
  static constexpr int kAVectors = BM * BK / 4 / kThreads;  // float4 loads of A per thread per tile
  static constexpr int kBVectors = BK * BN / 4 / kThreads;
  static_assert(BK % 2 == 0, "the fragment slots alternate, so BK must be even");

  using ATile = float[BK][BM + kPadA];  // A transposed: a_tile[k][m]
  using BTile = float[BK][BN];

  const cudalabs::GemmArgs& args;
  ATile* a_tile;  // two buffers
  BTile* b_tile;
  int row0, col0, tid;
  LanePieces<Tile> lane;
  // Every tile but the last takes plain loads (128-bit when kVector) with no bounds tests, edge
  // blocks included: a row of A below C's last row reads the last row instead, and a float4 of B
  // right of C's last column reads the float4 that holds that column (clamped, not tested). What
  // they compute is never stored. In a GEMM of one wave the slowest block sets the time: edge
  // blocks that tested every load made 1000^3 take 18 % longer than 1024^3 (the same blocks). When
  // N % 4 != 0 that float4 reaches up to 3 floats past column N - 1, into the row's padding or the
  // next rows: inside B for every row but the last ceil(3 / ldb) or fewer, so the tiles that hold
  // those rows take the tested loads (the tile past K's end does anyway). With ldb < 4 (N <= 3)
  // that is more than the last row: compute-sanitizer caught 1000 x 1 x 257 reading past B.
  int unchecked_k_end;  // tiles ending at or before this k take the plain loads
  int next_k0 = 0;      // the column of A (row of B) where the next tile starts
  float4 a_staged[kAVectors], b_staged[kBVectors];
  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];

  __device__ RegisterStagedBlock(const cudalabs::GemmArgs& gemm, ATile* a, BTile* b, int2 origin)
      : args(gemm), a_tile(a), b_tile(b), row0(origin.x), col0(origin.y), tid(threadIdx.x) {
    const int past_n = (args.n - 1) / 4 * 4 + 4 - args.n;  // floats a float4 reaches past N - 1
    unchecked_k_end = args.k - (past_n + args.ldb - 1) / args.ldb;
  }

  __device__ __forceinline__ void load_tile(int k0) {
    if (k0 + BK <= unchecked_k_end) {
#pragma unroll
      for (int r = 0; r < kAVectors; ++r) {
        const int v = tid + r * kThreads;
        const int row = min(row0 + v / (BK / 4), args.m - 1);
        a_staged[r] = load_four_inside<kVector>(args.a + row * args.lda + k0 + v % (BK / 4) * 4);
      }
#pragma unroll
      for (int r = 0; r < kBVectors; ++r) {
        const int v = tid + r * kThreads;
        const int column = min(col0 + v % (BN / 4) * 4, (args.n - 1) / 4 * 4);
        b_staged[r] = load_four_inside<kVector>(args.b + (k0 + v / (BN / 4)) * args.ldb + column);
      }
      return;
    }
#pragma unroll
    for (int r = 0; r < kAVectors; ++r) {
      const int v = tid + r * kThreads;
      a_staged[r] = load_four<kVector>(args.a, row0 + v / (BK / 4), k0 + v % (BK / 4) * 4, args.m,
                                       args.k, args.lda);
    }
#pragma unroll
    for (int r = 0; r < kBVectors; ++r) {
      const int v = tid + r * kThreads;
      b_staged[r] = load_four<kVector>(args.b, k0 + v / (BN / 4), col0 + v % (BN / 4) * 4, args.k,
                                       args.n, args.ldb);
    }
  }

  // The next tile along K, for the shared tile loop (warp_tile.cuh).
  __device__ __forceinline__ void load_next_tile() {
    load_tile(next_k0);
    next_k0 += BK;
  }

  __device__ __forceinline__ void run() {
    multiply_staged_tiles<Tile>(*this, (args.k + BK - 1) / BK);
    if (reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0 && args.ldc % 4 == 0) {
      store_lane_patch<Tile, true>(args, row0, col0, lane, acc);
    } else {
      store_lane_patch_shifted<Tile>(args, row0, col0, lane, acc);
    }
  }
};

template <class Tile, bool kVector, KSplit kSplit>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    wide_gemm_kernel(cudalabs::GemmArgs args, cudalabs::SplitFinish finish) {
  using Block = RegisterStagedBlock<Tile, kVector>;
  __shared__ __align__(16) typename Block::ATile a_tile[2];
  __shared__ __align__(16) typename Block::BTile b_tile[2];
  // best's share-out of K (k_slice.cuh): this block's tile, or its pieces of tiles under stream-K,
  // each counted once stored (the last part of a split tile sums the parts into C).
  for_each_tile_of_block<Tile, kSplit>(
      args, finish, [&](const cudalabs::GemmArgs& gemm, int tile, const TilePart& part) {
        Block block(gemm, a_tile, b_tile, swizzled_tile_origin<Tile>(gemm.m, gemm.n, tile));
        block.run();
        part.stored();
      });
}

}  // namespace
}  // namespace lab07

#include "narrow_kernel.cuh"
