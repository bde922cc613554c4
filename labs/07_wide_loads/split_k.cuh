// Split-K and stream-K for `best` (stream_k.h, KSplit): a GEMM whose tiles would leave SMs idle (a
// large K over a small C) runs as one launch whose blocks each compute part of a tile's K into a
// workspace (k_slice.cuh), and the last part of each tile to arrive sums the tile's parts into C in
// a fixed order and applies alpha and beta (common/split_finish.cuh, k_slice.cuh's TilePart). Where
// the launch cannot finish in place (a stream being captured into a graph), one more kernel sums
// the parts (common/slice_sums.cuh, which lab 11's `best` shares). Finishing in place saves that
// launch, the poisoning of the workspace before it and their host time (a split plan took the host
// 16.7 us a call, median, then 7.6: docs/data/history/lab07_split_in_place_s21_nvidia-h200/).
//  - Split-K: gridDim.z slices of K, block (x, y, z) writing tile x of slice z into workspace
//    slice z. Every element has all slices.
//  - Stream-K: one block per block an SM holds, each an equal share of all tiles' K iterations
//    (StreamKPartition): the heads of every tile in step, then the tails in even runs. The piece of
//    rank r of a tile goes into workspace slice r, and an element has as many slices as its tile
//    has pieces. The shares are equal however the tiles divide among the SMs: 40 tiles split 3
//    ways keep 120 of 132 SMs busy, stream-K all 132.
// One launch rather than one per slice on streams of their own: it measured the same and needs no
// streams or events.
#pragma once

#include "best_plan.h"
#include "common/gemm_types.h"
#include "common/launch_utils.h"
#include "common/slice_sums.cuh"
#include "common/split_finish.h"
#include "k_slice.cuh"
#include "stream_k.h"
#include "tiles.h"

#include <stdexcept>

namespace lab07 {
namespace {

// Which workspace slices hold parts of a tile of C: all `fixed` of them under split-K (C is then
// one tile), the tile's pieces under stream-K: the count sum_slices_kernel reads.
struct SliceCount {
  int fixed = 0;  // split-K's slices; 0 under stream-K
  StreamKPartition part{1, 1, 1};
  int tile_rows = 0, tile_cols = 0, tiles_n = 1;

  __device__ int of(int tile) const { return fixed > 0 ? fixed : part.pieces_of(tile); }
};

// The summing kernel's count for `splits` slices of K: C is one tile, every element has them all.
inline SliceCount split_k_count(const cudalabs::GemmArgs& args, int splits) {
  if (splits < 2 || splits > kMaxSplits ||
      (args.k + k_slice_length(args.k, splits) - 1) / k_slice_length(args.k, splits) != splits)
    throw std::logic_error("lab07 split-K: bad plan");
  SliceCount count;
  count.fixed = splits;
  count.tile_rows = args.m;
  count.tile_cols = args.n;
  return count;
}

// Runs args as `splits` slices of K with launch_slices(parts, finish, stream) (a launch of a kernel
// with gridDim.z = splits whose `regions` regions of C each sum their slices once the last
// arrives), or, where it cannot finish in place, with the finish not in place and then the summing
// kernel.
template <class LaunchSlices>
void launch_split_k(const cudalabs::GemmArgs& args, int splits, long long regions,
                    LaunchSlices launch_slices, cudaStream_t stream) {
  cudalabs::launch_split(args, splits, regions, split_k_count(args, splits), launch_slices, stream,
                         "lab07 sum_slices_kernel");
}

// Runs args under stream-K on `blocks` blocks of `tile`'s kernel with launch_stream(parts, finish,
// stream) (a launch of gridDim.x = blocks): the last piece of each tile to arrive sums its pieces
// into C, or, where the launch cannot finish in place, the summing kernel does.
template <class LaunchStream>
void launch_stream_k(const cudalabs::GemmArgs& args, const TileCandidate& tile, int blocks,
                     LaunchStream launch_stream, cudaStream_t stream) {
  if (blocks < 1 || tile.narrow || tile.few_rows)
    throw std::logic_error("lab07 stream-K: bad plan");
  SliceCount count;
  count.part = {cudalabs::ceil_div(args.m, tile.bm) * cudalabs::ceil_div(args.n, tile.bn),
                cudalabs::ceil_div(args.k, tile.bk), blocks};
  count.tile_rows = tile.bm;
  count.tile_cols = tile.bn;
  count.tiles_n = cudalabs::ceil_div(args.n, tile.bn);
  cudalabs::launch_split(args, count.part.max_pieces(), count.part.tiles, count, launch_stream,
                         stream, "lab07 sum_slices_kernel");
}

}  // namespace
}  // namespace lab07
