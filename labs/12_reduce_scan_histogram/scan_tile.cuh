/// @file labs/12_reduce_scan_histogram/scan_tile.cuh
/// @brief A tile of the scan in registers, and its loads and stores (given code): where each of a
/// block's values sits, so that the scan itself is the student's.
///
/// A tile of kScanTile = 4096 values is held by one block of kScanThreads = 256 threads. Warp w
/// owns the tile's w-th segment of kSegment = 512 consecutive values; in round r (of
/// kScanItemsPerThread / kVector) its lane l holds the kVector values of chunk r * 32 + l of the
/// segment, loaded with one 128-bit access when kVector = 4, so that each round of a warp reads
/// 512 consecutive bytes (128 with kVector = 1, for arrays off 16-byte alignment). The values per
/// thread are a template parameter (default kScanItemsPerThread), so that the optional challenge's
/// look-back scan can hold a tile of another size (kLookbackItemsPerThread) the same way.
#pragma once

#include "lab.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace lab12 {

/// Warps of a tile's block.
inline constexpr int kScanWarps = kScanThreads / 32;
/// Values of one warp's segment of a tile.
inline constexpr int kSegment = 32 * kScanItemsPerThread;

/// One thread's values of a tile: items[r][k] is value k of its chunk of round r.
template <int kVector, int kItemsPerThread = kScanItemsPerThread>
struct TileRegisters {
  static_assert(kItemsPerThread % kVector == 0, "a thread holds whole chunks");
  static constexpr int kItems = kItemsPerThread;             ///< values a thread holds
  static constexpr int kRounds = kItemsPerThread / kVector;  ///< chunks a lane holds
  std::uint32_t items[kRounds][kVector];                     ///< the values, in order
};

/// The index of the first value of this lane's chunk in round `round` of its warp's segment (a
/// warp's segment is 32 * kItemsPerThread values).
template <int kVector, int kItemsPerThread = kScanItemsPerThread>
__device__ __forceinline__ std::size_t chunk_index(std::size_t tile_base, int round) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  return tile_base + static_cast<std::size_t>(warp) * 32 * kItemsPerThread +
         static_cast<std::size_t>(round * 32 + lane) * kVector;
}

/// Loads this thread's values of the tile that starts at `tile_base`; values at or past `count`
/// are 0 (adding them changes nothing). kVector = 4 needs `input` 16-byte aligned.
template <int kVector, int kItemsPerThread>
__device__ __forceinline__ void load_tile(const std::uint32_t* __restrict__ input,
                                          std::size_t count, std::size_t tile_base,
                                          TileRegisters<kVector, kItemsPerThread>& tile) {
#pragma unroll
  for (int r = 0; r < TileRegisters<kVector, kItemsPerThread>::kRounds; ++r) {
    const std::size_t first = chunk_index<kVector, kItemsPerThread>(tile_base, r);
    if constexpr (kVector == 4) {
      if (first + 4 <= count) {
        const uint4 v = *reinterpret_cast<const uint4*>(input + first);
        tile.items[r][0] = v.x;
        tile.items[r][1] = v.y;
        tile.items[r][2] = v.z;
        tile.items[r][3] = v.w;
        continue;
      }
    }
#pragma unroll
    for (int k = 0; k < kVector; ++k) tile.items[r][k] = first + k < count ? input[first + k] : 0u;
  }
}

/// Stores this thread's values of the tile that starts at `tile_base`, each plus `offset`, those
/// before `count` only. kVector = 4 needs `output` 16-byte aligned.
template <int kVector, int kItemsPerThread>
__device__ __forceinline__ void store_tile(std::uint32_t* __restrict__ output, std::size_t count,
                                           std::size_t tile_base,
                                           const TileRegisters<kVector, kItemsPerThread>& tile,
                                           std::uint32_t offset) {
#pragma unroll
  for (int r = 0; r < TileRegisters<kVector, kItemsPerThread>::kRounds; ++r) {
    const std::size_t first = chunk_index<kVector, kItemsPerThread>(tile_base, r);
    if constexpr (kVector == 4) {
      if (first + 4 <= count) {
        *reinterpret_cast<uint4*>(output + first) =
            make_uint4(tile.items[r][0] + offset, tile.items[r][1] + offset,
                       tile.items[r][2] + offset, tile.items[r][3] + offset);
        continue;
      }
    }
#pragma unroll
    for (int k = 0; k < kVector; ++k)
      if (first + k < count) output[first + k] = tile.items[r][k] + offset;
  }
}

}  // namespace lab12
