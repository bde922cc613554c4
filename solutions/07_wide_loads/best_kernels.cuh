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
// narrow_gemm_kernel is a kernel of its own for a C a few columns wide, which wastes most of any
// tile.
#pragma once

#include "warp_tile.cuh"

#include <cstdint>

namespace lab07 {
namespace {

// Four consecutive floats that lie inside the matrix, no bounds tests: one 128-bit load when the
// rows are aligned. Off alignment (a row of N % 4 != 0 floats, or a matrix that starts off 16
// bytes), the two aligned 128-bit chunks that hold the four floats, shifted into place: two wide
// loads instead of four scalar ones, the same lines read (a predicated wide path rather than a
// scalar fallback). Their bytes before p and after p + 3 lie in 16-byte chunks that hold a float
// of the matrix, so inside its allocation, except past the matrix's last float: where the second
// chunk would reach past `end` (one past the matrix's last float), four scalar loads instead.
template <bool kVector>
__device__ __forceinline__ float4 load_four_inside(const float* __restrict__ p, const float* end) {
  if (kVector) return __ldg(reinterpret_cast<const float4*>(p));
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(p);
  const int shift = static_cast<int>(address >> 2) & 3;  // floats past the aligned chunk's start
  const float4* chunk = reinterpret_cast<const float4*>(address & ~std::uintptr_t{15});
  const bool second_inside = reinterpret_cast<const float*>(chunk + 2) <= end;
  if (shift != 0 && !second_inside)
    return make_float4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3));
  const float4 low = __ldg(chunk);
  const float4 high = shift != 0 ? __ldg(chunk + 1) : low;
  switch (shift) {
    case 1:
      return make_float4(low.y, low.z, low.w, high.x);
    case 2:
      return make_float4(low.z, low.w, high.x, high.y);
    case 3:
      return make_float4(low.w, high.x, high.y, high.z);
    default:
      return low;
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
  // next row: inside B for every row but the last, so the tile that holds B's last row takes the
  // tested loads (the tile past K's end does anyway).
  int unchecked_k_end;  // tiles ending at or before this k take the plain loads
  int next_k0 = 0;      // the column of A (row of B) where the next tile starts
  const float* a_end;   // one past A's last float, and B's: where a shifted load must stop
  const float* b_end;
  float4 a_staged[kAVectors], b_staged[kBVectors];
  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];

  __device__ RegisterStagedBlock(const cudalabs::GemmArgs& gemm, ATile* a, BTile* b, int2 origin)
      : args(gemm),
        a_tile(a),
        b_tile(b),
        row0(origin.x),
        col0(origin.y),
        tid(threadIdx.x),
        a_end(gemm.a + static_cast<long long>(gemm.m - 1) * gemm.lda + gemm.k),
        b_end(gemm.b + static_cast<long long>(gemm.k - 1) * gemm.ldb + gemm.n) {
    unchecked_k_end = args.n % 4 == 0 ? args.k : args.k - 1;
  }

  __device__ __forceinline__ void load_tile(int k0) {
    if (k0 + BK <= unchecked_k_end) {
#pragma unroll
      for (int r = 0; r < kAVectors; ++r) {
        const int v = tid + r * kThreads;
        const int row = min(row0 + v / (BK / 4), args.m - 1);
        a_staged[r] =
            load_four_inside<kVector>(args.a + row * args.lda + k0 + v % (BK / 4) * 4, a_end);
      }
#pragma unroll
      for (int r = 0; r < kBVectors; ++r) {
        const int v = tid + r * kThreads;
        const int column = min(col0 + v % (BN / 4) * 4, (args.n - 1) / 4 * 4);
        b_staged[r] =
            load_four_inside<kVector>(args.b + (k0 + v / (BN / 4)) * args.ldb + column, b_end);
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
    store_lane_patch<Tile, true>(args, row0, col0, lane, acc);
  }
};

template <class Tile, bool kVector, KSplit kSplit>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    wide_gemm_kernel(cudalabs::GemmArgs args) {
  using Block = RegisterStagedBlock<Tile, kVector>;
  __shared__ __align__(16) typename Block::ATile a_tile[2];
  __shared__ __align__(16) typename Block::BTile b_tile[2];
  // best's share-out of K (k_slice.cuh): this block's tile, or its pieces of tiles under stream-K.
  for_each_tile_of_block<Tile, kSplit>(args, [&](const cudalabs::GemmArgs& gemm, int tile) {
    Block block(gemm, a_tile, b_tile, swizzled_tile_origin<Tile>(gemm.m, gemm.n, tile));
    block.run();
  });
}

// A C of a few columns (N <= 16: the DCGAN's RGB layer has 3): a tile of 64 or more columns would
// compute zeros in all but N of them, and the product is a matrix-vector product in disguise, bound
// by reading A once (2 N FLOPs per 4 bytes). So each warp streams kNarrowRows rows of A, its lanes
// on consecutive k (every load a contiguous 128 bytes, any alignment), multiplies each element by
// the kCols values of B's row k (read through L1, where B stays), and the lanes' partial sums meet
// through shuffles. Block b covers rows (b / chunks) * kNarrowWarps * kNarrowRows .. and the column
// chunk b % chunks.
template <int kCols, bool kSlicedK>
__global__ void __launch_bounds__(kNarrowThreads) narrow_gemm_kernel(cudalabs::GemmArgs args) {
  if constexpr (kSlicedK) args = k_slice_of_block(args);  // best's split-K (k_slice.cuh)
  const int chunks = (args.n + kCols - 1) / kCols;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = (static_cast<int>(blockIdx.x) / chunks * kNarrowWarps + warp) * kNarrowRows;
  const int col0 = static_cast<int>(blockIdx.x) % chunks * kCols;
  if (row0 >= args.m) return;  // no barrier below: a warp may leave alone
  const int rows = min(kNarrowRows, args.m - row0), cols = min(kCols, args.n - col0);
  const float* a = args.a + row0 * args.lda;
  const float* b = args.b + col0;

  // [narrow]
  float acc[kNarrowRows][kCols] = {};
#pragma unroll 4
  for (int k = lane; k < args.k; k += 32) {
    float b_row[kCols];
#pragma unroll
    for (int c = 0; c < kCols; ++c) b_row[c] = c < cols ? __ldg(b + k * args.ldb + c) : 0.0f;
#pragma unroll
    for (int r = 0; r < kNarrowRows; ++r) {
      const float a_value = r < rows ? __ldg(a + r * args.lda + k) : 0.0f;
#pragma unroll
      for (int c = 0; c < kCols; ++c) acc[r][c] = fmaf(a_value, b_row[c], acc[r][c]);
    }
  }
  // Every lane ends with every sum; lane (r * kCols + c) % 32 stores element (r, c).
#pragma unroll
  for (int r = 0; r < kNarrowRows; ++r) {
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      float sum = acc[r][c];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
      if ((r * kCols + c) % 32 == lane && r < rows && c < cols)
        cudalabs::store_gemm_result(args.c + (row0 + r) * args.ldc + col0 + c, sum, args.alpha,
                                    args.beta);
    }
  }
  // [narrow]
}

}  // namespace
}  // namespace lab07
