/// @file labs/07_wide_loads/stream_k.h
/// @brief How `best` shares K out among the blocks of one launch (KSplit), and stream-K's
/// share-out of the tiles' K iterations: host and device code, so that the kernels and the CPU
/// tests run the same arithmetic.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

namespace lab07 {

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

}  // namespace lab07
