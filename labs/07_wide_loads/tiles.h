/// @file labs/07_wide_loads/tiles.h
/// @brief The tile shapes of lab 07's kernels, as one template parameter each.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__: best's plans and the kernels agree on k_slice_length

namespace lab07 {

/// A block tile of BM x BN outputs stepping BK along K, computed by WARPS_M x WARPS_N warps. Each
/// warp owns a (BM / WARPS_M) x (BN / WARPS_N) warp tile, and each of its 32 lanes a TM x TN patch
/// made of 4 x 4 pieces spread across the warp tile (so that a warp's 128-bit shared loads are
/// conflict-free). kMinBlocks is the number of blocks per SM the register budget is set for
/// (__launch_bounds__).
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int TM_, int TN_, int kMinBlocks_>
struct TileShape {
  static constexpr int BM = BM_;                  ///< rows of C per block
  static constexpr int BN = BN_;                  ///< columns of C per block
  static constexpr int BK = BK_;                  ///< depth of each tile along K
  static constexpr int WARPS_M = WARPS_M_;        ///< warps down the block tile
  static constexpr int WARPS_N = WARPS_N_;        ///< warps across the block tile
  static constexpr int TM = TM_;                  ///< rows of C per lane
  static constexpr int TN = TN_;                  ///< columns of C per lane
  static constexpr int kMinBlocks = kMinBlocks_;  ///< blocks per SM the register budget is set for
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;  ///< threads per block
  static constexpr int WM = BM / WARPS_M;                  ///< rows of a warp tile
  static constexpr int WN = BN / WARPS_N;                  ///< columns of a warp tile
  static constexpr int LANES_N = WN / TN;                  ///< lanes across a warp tile
  static constexpr int LANES_M = 32 / LANES_N;             ///< lanes down a warp tile
  static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warps must split the block tile");
  static_assert(WN % TN == 0 && 32 % LANES_N == 0 && LANES_M * TM == WM,
                "lanes must split the warp tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "patches are made of 4 x 4 pieces");
  static_assert((BM * BK / 4) % kThreads == 0 && (BK * BN / 4) % kThreads == 0,
                "tiles must split into float4s");
};

/// Small problems: 4 warps, 4 x 8 per lane, 16 deep (two tiles of 8 per barrier: a block of 4 warps
/// has little else to hide its loads behind).
using Tile64x64 = TileShape<64, 64, 16, 2, 2, 4, 8, 4>;
using Tile128x64 =
    TileShape<128, 64, 8, 2, 2, 8, 8, 2>;  ///< narrow problems: 4 warps, 8 x 8 per lane
/// Tile128x64 16 deep, for a C one tile wide: each block then reads its panel of A from DRAM, and a
/// tile of 8 is too little work to cover that trip.
using Tile128x64x16 = TileShape<128, 64, 16, 2, 2, 8, 8, 2>;
using Tile128x128 =
    TileShape<128, 128, 8, 2, 4, 8, 8, 2>;  ///< 8 warps, 8 x 8 per lane, 2 blocks per SM
using Tile128x256 =
    TileShape<128, 256, 8, 2, 4, 8, 16, 1>;  ///< 8 warps, 8 x 16 per lane, 1 block per SM
using Tile256x128 =
    TileShape<256, 128, 8, 4, 2, 16, 8, 1>;  ///< 8 warps, 16 x 8 per lane, 1 block per SM
/// Steps 1 and 2 of the lab (wide_loads_kernel, warp_tiles_kernel) keep lab 06's block: 128 x 128 x
/// 8, 256 threads, 8 x 8 outputs per thread, two blocks per SM.
using StepTile = Tile128x128;

/// The narrow kernel, for a C only a few columns wide: blocks of kNarrowWarps warps, each warp
/// computing kNarrowRows rows of C over a chunk of kCols columns (4, 8 or kNarrowMaxCols), its
/// lanes splitting K. Wider C takes several chunks.
inline constexpr int kNarrowWarps = 8;                    ///< warps per block of the narrow kernel
inline constexpr int kNarrowRows = 4;                     ///< rows of C per warp
inline constexpr int kNarrowMaxCols = 16;                 ///< the widest column chunk
inline constexpr int kNarrowThreads = kNarrowWarps * 32;  ///< threads per block

/// The narrow kernel's column chunk for a C of n columns: the narrowest of 4, 8 and kNarrowMaxCols
/// that covers n (wider C takes several chunks of kNarrowMaxCols).
constexpr int narrow_chunk(int n) {
  return n <= 4 ? 4 : n <= 8 ? 8 : kNarrowMaxCols;
}

/// K of each slice but the last when `best` splits K into `slices` (gridDim.z of a split launch): a
/// multiple of 8, so that every slice starts 16-byte aligned where K's first column is.
__host__ __device__ constexpr int k_slice_length(int k, int slices) {
  return ((k + slices - 1) / slices + 7) / 8 * 8;
}

/// How a launch of the wide kernel shares out K (`best` chooses, best_plan.h): each block computes
/// one tile over all of K (kWhole); one tile over slice blockIdx.z of K (kSlices, split-K); or
/// (kStream, stream-K) pieces of tiles' K adding up to an equal share of all the work
/// (StreamKPartition).
enum class KSplit { kWhole, kSlices, kStream };

/// Iterations laid end to end, `items` of `length` each, cut into `runs` runs whose lengths differ
/// by one at most: run r covers iterations first_iteration(r) .. first_iteration(r + 1) - 1. An
/// item is then computed in pieces, one by each run that meets it, ranked 0, 1, ... in run order.
struct EvenRuns {
  int items;   ///< tiles (or tails of tiles)
  int length;  ///< iterations of each
  int runs;    ///< 1 <= runs <= total(): every run holds at least one iteration

  /// All items' iterations.
  __host__ __device__ constexpr long long total() const {
    return static_cast<long long>(items) * length;
  }
  /// The first iteration of run r (r == runs: the end of the last one).
  __host__ __device__ constexpr long long first_iteration(int r) const {
    return total() * r / runs;
  }
  /// The run that holds `iteration`.
  __host__ __device__ constexpr int run_of(long long iteration) const {
    return static_cast<int>(((iteration + 1) * runs - 1) / total());
  }
  /// The first run that meets `item`.
  __host__ __device__ constexpr int first_run_of(int item) const {
    return run_of(static_cast<long long>(item) * length);
  }
  /// How many pieces `item` is computed in.
  __host__ __device__ constexpr int pieces_of(int item) const {
    return run_of(static_cast<long long>(item + 1) * length - 1) - first_run_of(item) + 1;
  }
  /// A bound on pieces_of over all items: an item meets at most ceil(length / shortest run) + 1
  /// runs.
  __host__ __device__ constexpr int max_pieces() const {
    const long long shortest = total() / runs;
    return static_cast<int>((length + shortest - 1) / shortest + 1);
  }
};

/// Stream-K's share-out of `tiles` tiles of `iterations_per_tile` K iterations (BK deep) among
/// `blocks` blocks, each at most run() iterations: the SMs' whole time, however the tiles divide
/// among them. Each tile's K starts with heads() pieces of run() iterations, every tile's piece j
/// computed by block j * tiles + tile: these blocks move along K in step, tile beside tile, so a
/// panel of A or B that several tiles share is read from DRAM once and from L2 after, as under
/// split-K (cutting all of the tiles' iterations into equal runs measured slower at 1024 x 1024 x
/// 65536 than split-K on fewer SMs: no two blocks were at the same K). The rest of each tile, its
/// tail of tail() iterations, is laid end to end with the other tails and cut into even runs
/// (EvenRuns) for the tail_blocks() blocks after the heads'; blocks past those, if any, have no
/// work. Piece ranks: head j is rank j, a tail's pieces follow.
struct StreamKPartition {
  int tiles;                ///< tiles of C
  int iterations_per_tile;  ///< ceil(K / BK)
  int blocks;               ///< blocks of the launch (gridDim.x), >= 1

  /// The longest run: ceil(all iterations / blocks).
  __host__ __device__ constexpr int run() const {
    return static_cast<int>((static_cast<long long>(tiles) * iterations_per_tile + blocks - 1) /
                            blocks);
  }
  /// Pieces of run() iterations at the start of every tile's K.
  __host__ __device__ constexpr int heads() const { return iterations_per_tile / run(); }
  /// The iterations of each tile after its heads.
  __host__ __device__ constexpr int tail() const { return iterations_per_tile - heads() * run(); }
  /// Blocks that compute heads: heads() per tile.
  __host__ __device__ constexpr int head_blocks() const { return heads() * tiles; }
  /// Blocks that share out the tails: the blocks left, but no more than the tails' iterations.
  __host__ __device__ constexpr int tail_blocks() const {
    const long long left = blocks - head_blocks();
    return static_cast<int>(left < static_cast<long long>(tiles) * tail()
                                ? left
                                : static_cast<long long>(tiles) * tail());
  }
  /// The tails' even runs (only when tail() > 0).
  __host__ __device__ constexpr EvenRuns tails() const { return {tiles, tail(), tail_blocks()}; }
  /// How many pieces `tile` is computed in.
  __host__ __device__ constexpr int pieces_of(int tile) const {
    return heads() + (tail() > 0 ? tails().pieces_of(tile) : 0);
  }
  /// A bound on pieces_of over all tiles.
  __host__ __device__ constexpr int max_pieces() const {
    return heads() + (tail() > 0 ? tails().max_pieces() : 0);
  }
};

/// Calls visit(tile, first, last, rank) for each piece of `block`'s work under `part`: iterations
/// first .. last - 1 of tile `tile`, written as that tile's piece of rank `rank`. The kernels run
/// it on the GPU (k_slice.cuh), the tests on the CPU. One call site, so that a kernel's tile loop
/// is inlined once.
template <class Visit>
__host__ __device__ void for_each_stream_k_piece(const StreamKPartition& part, int block,
                                                 Visit&& visit) {
  const int run = part.run(), head_end = part.heads() * run;
  const bool head = block < part.head_blocks();  // block / tiles of every tile, in step
  const int r = block - part.head_blocks();      // else run r of the tails
  if (!head && r >= part.tail_blocks()) return;  // more blocks than the tails have iterations
  const EvenRuns tails = head ? EvenRuns{1, 1, 1} : part.tails();
  long long iteration = head ? 0 : tails.first_iteration(r);
  const long long end = head ? 1 : tails.first_iteration(r + 1);
  while (iteration < end) {
    int tile, first, last, rank;
    if (head) {
      tile = block % part.tiles;
      rank = block / part.tiles;
      first = rank * run;
      last = first + run;
    } else {
      tile = static_cast<int>(iteration / tails.length);
      const int offset = static_cast<int>(iteration % tails.length);
      const long long left = end - iteration;
      const int stop =
          left < tails.length - offset ? offset + static_cast<int>(left) : tails.length;
      first = head_end + offset;
      last = head_end + stop;
      rank = part.heads() + r - tails.first_run_of(tile);
    }
    visit(tile, first, last, rank);
    iteration += head ? 1 : last - first;
  }
}

/// Shared memory of the cp.async kernel: kStages copies of the transposed A tile and the B tile.
template <class Tile, int kStages>
constexpr int async_shared_bytes() {
  return kStages * (Tile::BK * (Tile::BM + 4) + Tile::BK * Tile::BN) *
         static_cast<int>(sizeof(float));
}

}  // namespace lab07
