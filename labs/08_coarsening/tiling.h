/// @file labs/08_coarsening/tiling.h
/// @brief How the convolution is cut into blocks, shared by the student's and the solution's
/// kernels.
///
/// A block computes one output tile of one filter of one image: grid = (tiles, F, N). The tile is
/// the whole P x Q output when it has at most 1024 elements (both of [COARSEN-KGP]'s cases: 29 x 29
/// and 31 x 31, so a block is an image, as in the thesis), else 32 columns by as many rows as keep
/// it at 1024. The block stages the tile's input patch, (tile_p + R - 1) x (tile_q + S - 1), for a
/// chunk of channels, with the filter's weights for those channels, in shared memory; a thread
/// computes `factor` outputs of the tile, the ones numbered threadIdx.x + j * blockDim.x.
#pragma once

#include "common/conv_types.h"

#include <cuda_runtime.h>  // __host__ __device__, also for host-only compilers

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace lab08 {

/// The block plan for one shape and coarsening factor (see the file comment).
struct ConvTiling {
  int tile_p = 1;         ///< output rows per tile
  int tile_q = 1;         ///< output columns per tile
  int tiles_q = 1;        ///< tiles across an output row
  int tiles = 1;          ///< tiles per output image
  int patch_h = 1;        ///< input rows staged: tile_p + R - 1
  int patch_w = 1;        ///< input columns staged: tile_q + S - 1
  int channel_chunk = 1;  ///< channels staged between two barriers
  int threads = 32;       ///< threads per block: ceil(outputs / factor), rounded up to whole warps
  std::size_t shared_bytes = 0;  ///< dynamic shared memory per block

  /// Outputs per tile.
  __host__ __device__ int outputs() const { return tile_p * tile_q; }
  /// Floats of one staged input channel.
  __host__ __device__ int patch_plane() const { return patch_h * patch_w; }
};

/// Shared memory a block may use without opting in, on every GPU the suite targets.
inline constexpr std::size_t kSharedBudgetBytes = 48 * 1024;

/// The plan for `shape` at `factor` outputs per thread. Throws std::invalid_argument when even a
/// one-output tile with one channel needs more shared memory than kSharedBudgetBytes (a filter of
/// more than about 100 x 100).
inline ConvTiling plan_tiling(const cudalabs::ConvShape& shape, int factor) {
  if (factor < 1)
    throw std::invalid_argument("tiling: coarsening factor = " + std::to_string(factor));
  ConvTiling t;
  t.tile_q = std::min(shape.q(), 32);
  t.tile_p = std::min(shape.p(), std::max(1, 1024 / t.tile_q));
  const std::size_t budget_floats = kSharedBudgetBytes / sizeof(float);
  auto floats_per_channel = [&] {
    return static_cast<std::size_t>(t.tile_p + shape.r - 1) * (t.tile_q + shape.s - 1) +
           static_cast<std::size_t>(shape.r) * shape.s;
  };
  // Large filters: smaller tiles until one channel fits (rows first, they cost a whole patch row).
  while (floats_per_channel() > budget_floats && (t.tile_p > 1 || t.tile_q > 1)) {
    if (t.tile_p > 1) {
      t.tile_p = (t.tile_p + 1) / 2;
    } else {
      t.tile_q = (t.tile_q + 1) / 2;
    }
  }
  if (floats_per_channel() > budget_floats) {
    throw std::invalid_argument("tiling: a " + std::to_string(shape.r) + " x " +
                                std::to_string(shape.s) + " filter needs " +
                                std::to_string(floats_per_channel() * sizeof(float)) +
                                " bytes of shared memory per channel, more than the " +
                                std::to_string(kSharedBudgetBytes) + " a block may use");
  }
  t.tiles_q = (shape.q() + t.tile_q - 1) / t.tile_q;
  t.tiles = t.tiles_q * ((shape.p() + t.tile_p - 1) / t.tile_p);
  t.patch_h = t.tile_p + shape.r - 1;
  t.patch_w = t.tile_q + shape.s - 1;
  t.channel_chunk =
      static_cast<int>(std::min<std::size_t>(shape.c, budget_floats / floats_per_channel()));
  const int per_thread = (t.outputs() + factor - 1) / factor;
  t.threads = (per_thread + 31) / 32 * 32;
  t.shared_bytes = static_cast<std::size_t>(t.channel_chunk) * floats_per_channel() * sizeof(float);
  return t;
}

}  // namespace lab08
