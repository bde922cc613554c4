/// @file slice_sums.cuh
/// @brief The second half of split-K (and of lab 07's stream-K), shared by lab 07's and lab 11's
/// `best`: a GEMM whose tiles would leave SMs idle (a long K over a small C) runs as one launch
/// whose blocks each compute part of a tile's K into a workspace of FP32 partial Cs, which are then
/// summed and scaled by alpha and beta, either by one more kernel here (sum_slices_kernel,
/// launch_into_workspace) or by the launch itself (launch_split, split_finish.cuh), which saves the
/// second launch and the cleared memory the first path needs.
///
/// The parts are summed in a fixed order (slice 0, 1, ...), so the result does not depend on which
/// block finished first: two runs agree bit for bit, on either path. The workspace comes from the
/// stream-ordered allocator, so concurrent callers never share it, out of the pool that keeps what
/// is freed (aligned_operands.cuh): the default pool hands its memory back to the driver whenever
/// the device synchronizes, and a split would then pay for a fresh allocation at every call. On the
/// two-kernel path its first slice starts as the poison pattern (all bits set), and an element left
/// unwritten there stays unwritten in C: a kernel that writes nothing (a TODO) is still reported
/// as not implemented rather than as wrong (in place, such a kernel never arrives, and C keeps
/// what it held). slice_sums.h gives the planners what all this costs.
#pragma once

#include "common/aligned_operands.cuh"
#include "common/arrival_words.h"
#include "common/cuda_check.h"
#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "common/gemm_variant.h"
#include "common/launch_utils.h"
#include "common/split_finish.h"
#include "common/stream_scratch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace cudalabs {

/// Split-K's count of parts: every element of C has all `slices` of them (C is one tile).
struct EverySlice {
  int slices = 1;     ///< slices of K
  int tile_rows = 0;  ///< C's rows
  int tile_cols = 0;  ///< C's columns
  int tiles_n = 1;    ///< tiles across C: one

  /// The parts of tile `tile`: all of them.
  __host__ __device__ int of(int /*tile*/) const { return slices; }
};

/// Floats between the starts of two rows of a workspace of partial Cs with `n` columns: a multiple
/// of 4, so that the parts are written and read 128 bits at a time.
inline int workspace_row_floats(int n) {
  return (n + 3) / 4 * 4;
}

/// C = alpha * (sum of the parts) + beta * C over tile blockIdx.y of C (tiles of count.tile_rows x
/// count.tile_cols, count.tiles_n across), its elements shared out among the blocks of that tile
/// four columns to a thread: the workspace's rows are padded to a multiple of 4 floats, so its
/// reads are 128 bits wide, and so are C's where C allows (the count of parts is found once per
/// thread, not per element). Part s of an element lies slice_floats floats after part s - 1. An
/// element whose part holds the poison pattern stays poisoned in C. SliceCount: EverySlice, or a
/// lab's count of stream-K's pieces (tile_rows, tile_cols, tiles_n and __device__ of(tile); a
/// tile of no parts is one the launch wrote into C itself, and is left as it is).
template <class SliceCount>
__global__ void sum_slices_kernel(GemmOutput out, const float* __restrict__ slices,
                                  long long slice_floats, int ldw, SliceCount count) {
  const int tile = static_cast<int>(blockIdx.y);
  const int row0 = tile / count.tiles_n * count.tile_rows;
  const int col0 = tile % count.tiles_n * count.tile_cols;
  const int rows = min(count.tile_rows, out.m - row0), cols = min(count.tile_cols, out.n - col0);
  const int quads = (cols + 3) / 4;  // groups of 4 columns per row
  const int slice_count = count.of(tile);
  if (slice_count == 0) return;  // a tile the launch wrote into C itself
  const bool c_vector = reinterpret_cast<std::uintptr_t>(out.c) % 16 == 0 && out.ldc % 4 == 0;
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
    float* c = out.c + static_cast<long long>(row) * out.ldc + col;
    const bool all_written = written[0] && written[1] && written[2] && written[3];
    if (c_vector && valid == 4 && all_written) {
      store_gemm_result4(c, make_float4(sum[0], sum[1], sum[2], sum[3]), out.alpha, out.beta);
      continue;
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      if (q >= valid) break;
      if (!written[q]) {
        c[q] = __uint_as_float(0xFFFFFFFFu);
      } else {
        store_gemm_result(c + q, sum[q], out.alpha, out.beta);
      }
    }
  }
}

/// The summing kernel's launch for a C of `shape` cut as `count` says: 256 threads a block, one
/// row of blocks (gridDim.y) per tile, each row enough blocks for a thread per four columns of the
/// tile, within the grid's limit of 65535 along y and x together.
template <class SliceCount>
KernelLaunch slice_sums_launch(const GemmShape& shape, const SliceCount& count) {
  const int tiles = ceil_div(shape.m, count.tile_rows) * ceil_div(shape.n, count.tile_cols);
  const long long tile_groups =
      static_cast<long long>(count.tile_rows) * ceil_div(count.tile_cols, 4);
  const dim3 grid(static_cast<unsigned>(std::clamp<long long>((tile_groups + 255) / 256, 1,
                                                              std::max(1, 65535 / tiles))),
                  static_cast<unsigned>(tiles));
  return {reinterpret_cast<const void*>(&sum_slices_kernel<SliceCount>), grid, dim3(256), 0};
}

/// A workspace of `slices` partial Cs for args' C (args.m rows of workspace_row_floats(args.n)
/// floats each) in `stream`'s scratch (common/stream_scratch.h), lent to this object while it
/// lives, and the arguments that write into it (alpha 1, beta 0).
template <class Input>
class PartsWorkspace {
 public:
  /// The workspace for `slices` partial Cs of args' C on `stream`.
  PartsWorkspace(const GemmArgsOf<Input>& args, int slices, cudaStream_t stream)
      : parts_(args),
        slice_floats_(static_cast<long long>(args.m) * workspace_row_floats(args.n)),
        scratch_(stream, ScratchUse::kParts, sizeof(float) * slice_floats_ * slices) {
    parts_.c = static_cast<float*>(scratch_.data());
    parts_.ldc = workspace_row_floats(args.n);
    parts_.alpha = 1.0f;
    parts_.beta = 0.0f;
  }
  PartsWorkspace(const PartsWorkspace&) = delete;
  PartsWorkspace& operator=(const PartsWorkspace&) = delete;

  /// The arguments whose C is the workspace.
  const GemmArgsOf<Input>& parts() const { return parts_; }
  /// Floats from one partial C to the next.
  long long slice_floats() const { return slice_floats_; }

 private:
  GemmArgsOf<Input> parts_;
  long long slice_floats_ = 0;
  StreamScratch scratch_;
};

/// Runs launch_parts(parts, stream), a launch of a lab's kernel that writes its parts of C into
/// `slices` slices of a workspace (parts.c, args.m rows of parts.ldc floats each, alpha 1, beta 0),
/// then sums them into args' C, as `count` says which parts each tile of C has. `who` names the
/// caller in errors. A count whose tiles above some row have no parts says which row
/// (first_row_with_parts(), host code), and only the rows from there are poisoned.
template <class Input, class SliceCount, class LaunchParts>
void launch_into_workspace(const GemmArgsOf<Input>& args, int slices, const SliceCount& count,
                           LaunchParts launch_parts, cudaStream_t stream, const char* who) {
  const PartsWorkspace<Input> workspace(args, slices, stream);
  const GemmArgsOf<Input>& parts = workspace.parts();
  long long first_row = 0;
  if constexpr (requires { count.first_row_with_parts(); })
    first_row = std::clamp<long long>(count.first_row_with_parts(), 0, args.m);
  const long long skipped = first_row * parts.ldc;
  CUDA_CHECK(cudaMemsetAsync(parts.c + skipped, 0xFF,
                             sizeof(float) * (workspace.slice_floats() - skipped), stream));
  launch_parts(parts, stream);
  const KernelLaunch sums = slice_sums_launch(args.shape(), count);
  sum_slices_kernel<SliceCount><<<sums.grid, sums.block, 0, stream>>>(
      GemmOutput::of(args), parts.c, workspace.slice_floats(), parts.ldc, count);
  CUDA_CHECK_LAUNCH(who);
}

/// Runs launch_parts(parts, finish, stream), a launch of a lab's kernel that writes its parts of C
/// into `slices` slices of a workspace, as launch_into_workspace's does, and with `finish` in place
/// (split_finish.h) sums them into C itself, counting arrivals on `regions` words: one launch, no
/// cleared memory. Where no words are lent (a stream being captured into a graph: arrival_words.h)
/// or more slices arrive than a word counts, it runs launch_into_workspace instead, with `finish`
/// not in place but naming C (a tile the launch computes alone may go there: `count` gives it no
/// parts).
template <class Input, class SliceCount, class LaunchParts>
void launch_split(const GemmArgsOf<Input>& args, int slices, long long regions,
                  const SliceCount& count, LaunchParts launch_parts, cudaStream_t stream,
                  const char* who) {
  const bool countable = slices < (1 << kArrivalCountBits);
  const ArrivalWords arrivals(stream, countable ? regions : kArrivalWords + 1);
  if (!arrivals.lent()) {
    // C, but no words: the kernel writes its parts, and anything it finishes alone, there
    const auto parts_then_sum = [&](const GemmArgsOf<Input>& parts, cudaStream_t on) {
      launch_parts(parts, SplitFinish{GemmOutput::of(args)}, on);
    };
    launch_into_workspace(args, slices, count, parts_then_sum, stream, who);
    return;
  }
  const PartsWorkspace<Input> workspace(args, slices, stream);
  const SplitFinish finish{GemmOutput::of(args), arrivals.words(), workspace.slice_floats()};
  launch_parts(workspace.parts(), finish, stream);
}

}  // namespace cudalabs
