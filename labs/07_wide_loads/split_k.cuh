// Split-K and stream-K for `best` (stream_k.h, KSplit): a GEMM whose tiles would leave SMs idle (a
// large K over a small C) runs as one launch whose blocks each compute part of a tile's K into a
// workspace (k_slice.cuh), then one more kernel sums the parts in a fixed order (the result does
// not depend on which block finished first) and applies alpha and beta.
//  - Split-K: gridDim.z slices of K, block (x, y, z) writing tile x of slice z into workspace
//    slice z. Every element has all slices.
//  - Stream-K: one block per block an SM holds, each an equal share of all tiles' K iterations
//    (StreamKPartition): the heads of every tile in step, then the tails in even runs. The piece of
//    rank r of a tile goes into workspace slice r, and an element has as many slices as its tile
//    has pieces. The shares are equal however the tiles divide among the SMs: 40 tiles split 3
//    ways keep 120 of 132 SMs busy, stream-K all 132.
// One launch rather than one per slice on streams of their own: it measured the same and needs no
// streams or events. The workspace comes from the stream-ordered allocator, so concurrent callers
// never share it, out of the pool that keeps what is freed (common/aligned_operands.cuh): the
// default pool hands its memory back to the driver whenever the device synchronizes, and a split
// would then pay for a fresh allocation at every call. Its first slice starts as the poison pattern
// (all bits set), and an element left unwritten there stays unwritten in C: a kernel that writes
// nothing (a TODO) is still reported as not implemented rather than as wrong.
#pragma once

#include "best_plan.h"
#include "common/aligned_operands.cuh"
#include "common/cuda_check.h"
#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "common/launch_utils.h"
#include "k_slice.cuh"
#include "tiles.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace lab07 {
namespace {

// Which workspace slices hold parts of a tile of C: all `fixed` of them under split-K (C is then
// one tile), the tile's pieces under stream-K.
struct SliceCount {
  int fixed = 0;  // split-K's slices; 0 under stream-K
  StreamKPartition part{1, 1, 1};
  int tile_rows = 0, tile_cols = 0, tiles_n = 1;

  __device__ int of(int tile) const { return fixed > 0 ? fixed : part.pieces_of(tile); }
};

// C = alpha * (sum of the slices) + beta * C over tile blockIdx.y of C, its elements shared out
// among the blocks of that tile four columns to a thread: the workspace's rows are padded to a
// multiple of 4 floats, so its reads are 128 bits wide, and so are C's where C allows (the count of
// slices is found once per thread, not per element).
__global__ void sum_slices_kernel(cudalabs::GemmArgs args, const float* __restrict__ slices,
                                  long long slice_floats, int ldw, SliceCount count) {
  const int tile = static_cast<int>(blockIdx.y);
  const int row0 = tile / count.tiles_n * count.tile_rows;
  const int col0 = tile % count.tiles_n * count.tile_cols;
  const int rows = min(count.tile_rows, args.m - row0), cols = min(count.tile_cols, args.n - col0);
  const int quads = (cols + 3) / 4;  // groups of 4 columns per row
  const int slice_count = count.of(tile);
  const bool c_vector = reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0 && args.ldc % 4 == 0;
  const long long groups = static_cast<long long>(rows) * quads;
  for (long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; g < groups;
       g += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int row = row0 + static_cast<int>(g / quads);
    const int col = col0 + static_cast<int>(g % quads) * 4;
    const int valid = min(4, col0 + cols - col);  // columns of this group inside C
    const float* partial = slices + static_cast<long long>(row) * ldw + col;
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    bool written[4] = {true, true, true, true};
    for (int s = 0; s < slice_count; ++s) {
      const float* from = partial + s * slice_floats;
      float values[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if (valid == 4) {  // the kernels wrote no column past N: read none
        const float4 value = *reinterpret_cast<const float4*>(from);
        values[0] = value.x, values[1] = value.y, values[2] = value.z, values[3] = value.w;
      } else {
        for (int q = 0; q < valid; ++q) values[q] = from[q];
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        written[q] = written[q] && (q >= valid || __float_as_uint(values[q]) != 0xFFFFFFFFu);
        sum[q] += values[q];
      }
    }
    float* c = args.c + static_cast<long long>(row) * args.ldc + col;
    const bool all_written = written[0] && written[1] && written[2] && written[3];
    if (c_vector && valid == 4 && all_written) {
      cudalabs::store_gemm_result4(c, make_float4(sum[0], sum[1], sum[2], sum[3]), args.alpha,
                                   args.beta);
      continue;
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      if (q >= valid) break;
      if (!written[q]) {
        c[q] = __uint_as_float(0xFFFFFFFFu);
      } else {
        cudalabs::store_gemm_result(c + q, sum[q], args.alpha, args.beta);
      }
    }
  }
}

// Runs launch_parts(workspace_args, stream), a launch of the lab's kernel that writes its parts of
// C into `slices` slices of a workspace (workspace_args.c, alpha 1, beta 0), then sums them into
// C.
template <class LaunchParts>
void launch_into_workspace(const cudalabs::GemmArgs& args, int slices, const SliceCount& count,
                           LaunchParts launch_parts, cudaStream_t stream) {
  const int ldw = (args.n + 3) / 4 * 4;  // slices keep 128-bit stores
  const long long slice_floats = static_cast<long long>(args.m) * ldw;
  float* workspace = nullptr;
  CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&workspace),
                                     sizeof(float) * slice_floats * slices,
                                     cudalabs::scratch_pool(), stream));
  CUDA_CHECK(cudaMemsetAsync(workspace, 0xFF, sizeof(float) * slice_floats, stream));
  cudalabs::GemmArgs parts = args;
  parts.c = workspace;
  parts.ldc = ldw;
  parts.alpha = 1.0f;
  parts.beta = 0.0f;
  launch_parts(parts, stream);
  const int tiles =
      cudalabs::ceil_div(args.m, count.tile_rows) * cudalabs::ceil_div(args.n, count.tile_cols);
  const long long tile_groups =
      static_cast<long long>(count.tile_rows) * cudalabs::ceil_div(count.tile_cols, 4);
  const dim3 grid(static_cast<unsigned>(std::clamp<long long>((tile_groups + 255) / 256, 1,
                                                              std::max(1, 65535 / tiles))),
                  static_cast<unsigned>(tiles));
  sum_slices_kernel<<<grid, 256, 0, stream>>>(args, workspace, slice_floats, ldw, count);
  CUDA_CHECK_LAUNCH("lab07 sum_slices_kernel");
  CUDA_CHECK(cudaFreeAsync(workspace, stream));
}

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
  launch_into_workspace(args, splits, count, launch_slices, stream);
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
  launch_into_workspace(args, count.part.max_pieces(), count, launch_stream, stream);
}

}  // namespace
}  // namespace lab07
