// Split-K and stream-K for `best` (stream_k.h, KSplit): a GEMM whose tiles would leave SMs idle (a
// large K over a small C) runs as one launch whose blocks each compute part of a tile's K into a
// workspace (k_slice.cuh), then one more kernel sums the parts in a fixed order and applies alpha
// and beta (common/slice_sums.cuh, which lab 11's `best` shares).
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

// Runs args as `splits` slices of K with launch_slices(parts, stream) (a launch of the lab's kernel
// with gridDim.z = splits), then sums them into C.
template <class LaunchSlices>
void launch_split_k(const cudalabs::GemmArgs& args, int splits, LaunchSlices launch_slices,
                    cudaStream_t stream) {
  if (splits < 2 || splits > kMaxSplits ||
      (args.k + k_slice_length(args.k, splits) - 1) / k_slice_length(args.k, splits) != splits)
    throw std::logic_error("lab07 split-K: bad plan");
  SliceCount count;
  count.fixed = splits;
  count.tile_rows = args.m;  // C is one tile: every element has all slices
  count.tile_cols = args.n;
  cudalabs::launch_into_workspace(args, splits, count, launch_slices, stream,
                                  "lab07 sum_slices_kernel");
}

// Runs args under stream-K on `blocks` blocks of `tile`'s kernel with launch_stream(parts, stream)
// (a launch of gridDim.x = blocks), then sums the pieces into C.
template <class LaunchStream>
void launch_stream_k(const cudalabs::GemmArgs& args, const TileCandidate& tile, int blocks,
                     LaunchStream launch_stream, cudaStream_t stream) {
  if (blocks < 1 || tile.narrow) throw std::logic_error("lab07 stream-K: bad plan");
  SliceCount count;
  count.part = {cudalabs::ceil_div(args.m, tile.bm) * cudalabs::ceil_div(args.n, tile.bn),
                cudalabs::ceil_div(args.k, tile.bk), blocks};
  count.tile_rows = tile.bm;
  count.tile_cols = tile.bn;
  count.tiles_n = cudalabs::ceil_div(args.n, tile.bn);
  cudalabs::launch_into_workspace(args, count.part.max_pieces(), count, launch_stream, stream,
                                  "lab07 sum_slices_kernel");
}

}  // namespace
}  // namespace lab07
