// How a block of the wide kernels finds its work (given code): which tile of C it computes
// (swizzled_tile_origin), and, when `best` shares out K (stream_k.h, KSplit), which part of K. The
// kernel hands for_each_tile_of_block a function that computes one tile of a GEMM, and gets it
// called once per piece of work:
//  - kWhole: tile blockIdx.x of args.
//  - kSlices (split-K): tile blockIdx.x of slice blockIdx.z of args (k_slice_of_block), written
//    into that slice's part of a workspace that args.c points to (args.m rows of args.ldc floats
//    per slice).
//  - kStream (stream-K): each piece of tile this block computes (StreamKPartition), as a GEMM of
//    its own whose tile 0 is the piece: its A, B and C start at the tile's corner and its K range,
//    its size is the tile's (smaller at C's edges), and its C lies in the workspace slice of the
//    piece's rank.
// A piece's GEMM is a GEMM like any other; once the block has stored it, TilePart::stored() counts
// the part, and the tile's last part to arrive sums every part into C (common/split_finish.cuh:
// one launch, no summing kernel; with no finish in place, in a stream being captured, split_k.cuh's
// summing kernel does). The sliced and streamed instantiations run only for split plans: finding
// the work costs registers (ptxas: wide_256x128 236 instead of 232 with slices).
#pragma once

#include "common/gemm_types.h"
#include "common/split_finish.cuh"
#include "lab.h"
#include "stream_k.h"
#include "tiles.h"

namespace lab07 {

/// Where tile number `tile` of an m x n C starts (row, column): consecutive tiles walk down
/// kGroupRows block rows before moving right, so that the blocks running together share panels of
/// A and B, which are then read from L2 rather than DRAM (a block swizzle).
template <class Tile>
__device__ __forceinline__ int2 swizzled_tile_origin(int m, int n, int tile) {
  const int tiles_m = (m + Tile::BM - 1) / Tile::BM, tiles_n = (n + Tile::BN - 1) / Tile::BN;
  const int blocks_per_group = kGroupRows * tiles_n;
  const int first_tile_m = tile / blocks_per_group * kGroupRows;
  const int group_rows = min(tiles_m - first_tile_m, kGroupRows);
  const int in_group = tile % blocks_per_group;
  return make_int2((first_tile_m + in_group % group_rows) * Tile::BM,
                   (in_group / group_rows) * Tile::BN);
}

/// This block's GEMM under split-K: slice blockIdx.z of args (all of it on a grid of one slice).
__device__ __forceinline__ cudalabs::GemmArgs k_slice_of_block(cudalabs::GemmArgs args) {
  if (gridDim.z == 1) return args;
  const int length = k_slice_length(args.k, static_cast<int>(gridDim.z));
  const int k0 = static_cast<int>(blockIdx.z) * length;
  args.a += k0;
  args.b += static_cast<long long>(k0) * args.ldb;
  args.c += static_cast<long long>(blockIdx.z) * args.m * args.ldc;
  args.k = min(length, args.k - k0);
  return args;
}

/// Stream-K's share-out of args among the gridDim.x blocks of a launch, for tiles of Tile.
template <class Tile>
__host__ __device__ constexpr StreamKPartition stream_k_partition(int m, int n, int k, int blocks) {
  return {((m + Tile::BM - 1) / Tile::BM) * ((n + Tile::BN - 1) / Tile::BN),
          (k + Tile::BK - 1) / Tile::BK, blocks};
}

/// Iterations first .. last - 1 of `tile` of args (tiles of Tile numbered row by row), as a GEMM of
/// its own whose tile 0 is that tile, writing into workspace slice `rank` (args.m rows of args.ldc
/// floats each).
template <class Tile>
__device__ __forceinline__ cudalabs::GemmArgs stream_k_piece(const cudalabs::GemmArgs& args,
                                                             int tile, int first, int last,
                                                             int rank) {
  const int tiles_n = (args.n + Tile::BN - 1) / Tile::BN;
  const int row0 = tile / tiles_n * Tile::BM, col0 = tile % tiles_n * Tile::BN;
  const int k0 = first * Tile::BK;
  cudalabs::GemmArgs piece = args;
  piece.m = min(Tile::BM, args.m - row0);
  piece.n = min(Tile::BN, args.n - col0);
  piece.k = min(last * Tile::BK, args.k) - k0;
  piece.a += static_cast<long long>(row0) * args.lda + k0;
  piece.b += static_cast<long long>(k0) * args.ldb + col0;
  piece.c += static_cast<long long>(rank) * args.m * args.ldc +
             static_cast<long long>(row0) * args.ldc + col0;
  return piece;
}

/// One piece of a block's work as for_each_tile_of_block hands it out: a part of tile `region` of
/// C, rows row0 .. row0 + rows - 1 and columns col0 .. col0 + cols - 1, one of the tile's `parts`,
/// whose parts lie in `workspace` (ldw floats a row). With K whole there is nothing to finish
/// (split false).
struct TilePart {
  bool split = false;                ///< K shared out: the part must be counted
  cudalabs::SplitFinish finish{};    ///< the launch's finish (in place or not)
  const float* workspace = nullptr;  ///< the parts: part s of the tile at workspace + s * slice
  int ldw = 0;                       ///< floats from one row of the workspace to the next
  int region = 0;                    ///< the tile's arrival word (its number)
  int parts = 1;                     ///< parts the tile has
  int row0 = 0;                      ///< the tile's first row of C
  int rows = 0;                      ///< its rows inside C
  int col0 = 0;                      ///< its first column of C
  int cols = 0;                      ///< its columns inside C

  /// The part of the tile at (row0, col0), tiles of Tile, of the C whose parts are `args`.
  template <class Tile>
  __device__ static TilePart of(const cudalabs::GemmArgs& args, const cudalabs::SplitFinish& finish,
                                int region, int parts, int row0, int col0) {
    return {true,   finish,
            args.c, args.ldc,
            region, parts,
            row0,   min(Tile::BM, args.m - row0),
            col0,   min(Tile::BN, args.n - col0)};
  }

  /// Called by every thread of the block once it has stored its part of the tile: under split-K
  /// and stream-K with the finish in place, counts the part and, where it is the tile's last to
  /// arrive, sums every part into C (common/split_finish.cuh: one launch, no summing kernel). A
  /// tile function that never stores never calls it, and leaves C as it was.
  __device__ __forceinline__ void stored() const {
    if (!split || !finish.in_place()) return;
    __shared__ int last_part;
    cudalabs::finish_part(finish, workspace, ldw, region, parts, row0, rows, col0, cols,
                          static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), &last_part,
                          [] { __syncthreads(); });
  }
};

/// The narrow kernel's block (challenge B) as a part of C: block b's kNarrowWarps * kNarrowRows
/// rows by its chunk of kCols columns (b / chunks, b % chunks), one of gridDim.z slices of K. Call
/// it before k_slice_of_block moves args.c to the block's slice.
template <int kCols>
__device__ __forceinline__ TilePart narrow_block_part(const cudalabs::GemmArgs& args,
                                                      const cudalabs::SplitFinish& finish) {
  constexpr int kRows = kNarrowWarps * kNarrowRows;
  const int chunks = (args.n + kCols - 1) / kCols, block = static_cast<int>(blockIdx.x);
  const int row0 = block / chunks * kRows, col0 = block % chunks * kCols;
  return {gridDim.z > 1, finish,
          args.c,        args.ldc,
          block,         static_cast<int>(gridDim.z),
          row0,          min(kRows, args.m - row0),
          col0,          min(kCols, args.n - col0)};
}

/// Calls tile_gemm(gemm, tile, part) for each piece of this block's work (see above): tile is the
/// number of the tile of gemm to compute (blockIdx.x, or 0 for a stream-K piece), and part
/// (TilePart) finishes it once stored. Pieces after the first start with a barrier, since they
/// refill the shared tiles the previous one read.
template <class Tile, KSplit kSplit, class TileGemm>
__device__ __forceinline__ void for_each_tile_of_block(const cudalabs::GemmArgs& args,
                                                       const cudalabs::SplitFinish& finish,
                                                       TileGemm&& tile_gemm) {
  if constexpr (kSplit == KSplit::kWhole) {
    tile_gemm(args, static_cast<int>(blockIdx.x), TilePart{});
  } else if constexpr (kSplit == KSplit::kSlices) {
    const int tile = static_cast<int>(blockIdx.x);
    const int2 origin = swizzled_tile_origin<Tile>(args.m, args.n, tile);
    tile_gemm(
        k_slice_of_block(args), tile,
        TilePart::of<Tile>(args, finish, tile, static_cast<int>(gridDim.z), origin.x, origin.y));
  } else {
    const StreamKPartition part =
        stream_k_partition<Tile>(args.m, args.n, args.k, static_cast<int>(gridDim.x));
    const int tiles_n = (args.n + Tile::BN - 1) / Tile::BN;
    bool first_piece = true;
    for_each_stream_k_piece(
        part, static_cast<int>(blockIdx.x), [&](int tile, int first, int last, int rank) {
          if (!first_piece) __syncthreads();
          first_piece = false;
          tile_gemm(stream_k_piece<Tile>(args, tile, first, last, rank), 0,
                    TilePart::of<Tile>(args, finish, tile, part.pieces_of(tile),
                                       tile / tiles_n * Tile::BM, tile % tiles_n * Tile::BN));
        });
  }
}

}  // namespace lab07
