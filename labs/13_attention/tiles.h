/// @file labs/13_attention/tiles.h
/// @brief The tiles of lab 13's fused attention kernels, where a 16-byte chunk of a tile row lives
/// in shared memory, and which queries, head and key tiles a block works on (given code).
#pragma once

#include "lab.h"

#include <cuda_runtime.h>

#include <cstddef>

namespace lab13 {

/// flash_mma: a block of 4 warps owns 64 queries (16 per warp); K and V stream through in tiles of
/// 64 keys, two stages of each in flight. Shared memory: the Q tile, then the K stages, then the V
/// stages, every row `head_dim` BF16 long.
struct MmaTile {
  static constexpr int kQueries = 64;           ///< queries per block
  static constexpr int kKeys = 64;              ///< keys per K or V tile
  static constexpr int kWarps = 4;              ///< warps per block, 16 queries each
  static constexpr int kThreads = 32 * kWarps;  ///< threads per block
  static constexpr int kStages = 2;             ///< K and V tiles in flight

  /// Bytes of the Q tile.
  __host__ __device__ static constexpr std::size_t q_bytes(int head_dim) {
    return static_cast<std::size_t>(kQueries) * head_dim * 2;
  }
  /// Bytes of one K or V tile.
  __host__ __device__ static constexpr std::size_t kv_bytes(int head_dim) {
    return static_cast<std::size_t>(kKeys) * head_dim * 2;
  }
  /// Bytes of shared memory for a head dimension: Q, kStages K tiles and kStages V tiles.
  __host__ __device__ static constexpr std::size_t shared_bytes(int head_dim) {
    return q_bytes(head_dim) + 2 * kStages * kv_bytes(head_dim);
  }
  /// Stage `stage`'s K tile in the block's shared memory `shared` (the Q tile is at `shared`).
  __device__ static unsigned char* k_tile(unsigned char* shared, int head_dim, int stage) {
    return shared + q_bytes(head_dim) + stage * kv_bytes(head_dim);
  }
  /// Stage `stage`'s V tile in the block's shared memory `shared`.
  __device__ static unsigned char* v_tile(unsigned char* shared, int head_dim, int stage) {
    return shared + q_bytes(head_dim) + (kStages + stage) * kv_bytes(head_dim);
  }
};

/// Byte offset of 16-byte chunk `chunk` (8 BF16) of row `row` in a tile whose rows are `chunks`
/// chunks long, the chunk stored at position chunk ^ (row % 8): the 8 rows one ldmatrix phase reads
/// at the same logical chunk sit at 8 different positions of a 128-byte span, so the phase touches
/// all 32 banks once (no conflict), and a row's chunks stay in the row.
__host__ __device__ constexpr unsigned swizzled_chunk_offset(int row, int chunk, int chunks) {
  return static_cast<unsigned>(row * chunks + (chunk ^ (row % 8))) * 16u;
}

/// swizzled_chunk_offset for a tile whose rows are kHeadDim BF16 long (kHeadDim / 8 chunks), as
/// the function object load_rows (mma_tiles.cuh) takes: the layout of flash_mma's tiles.
template <int kHeadDim>
struct SwizzledRows {
  /// The byte offset of 16-byte chunk `chunk` of row `row`.
  __host__ __device__ constexpr unsigned operator()(int row, int chunk) const {
    return swizzled_chunk_offset(row, chunk, kHeadDim / 8);
  }
};

/// flash_wgmma: a block of 2 warpgroups owns 128 queries (64 per warpgroup); K and V tiles of 64
/// keys, two stages. Every tile is stored the way wgmma's descriptors read it: panels of 64 columns
/// (128-byte rows, rows * 128 bytes a panel), 16-byte chunk c of row r at position c ^ (r % 8) (the
/// 128-byte swizzle), each panel starting on a 1024-byte boundary.
struct WgmmaTile {
  static constexpr int kQueries = 128;                ///< queries per block
  static constexpr int kKeys = 64;                    ///< keys per K or V tile
  static constexpr int kWarpgroups = 2;               ///< 64 queries each
  static constexpr int kThreads = 128 * kWarpgroups;  ///< threads per block
  static constexpr int kStages = 2;                   ///< K and V tiles in flight
  static constexpr int kPanelColumns = 64;            ///< BF16 per 128-byte row of a panel
  static constexpr std::size_t kAlignment =
      1024;  ///< the swizzle repeats every 8 rows of 128 bytes

  /// Bytes of the Q tile.
  __host__ __device__ static constexpr std::size_t q_bytes(int head_dim) {
    return static_cast<std::size_t>(kQueries) * head_dim * 2;
  }
  /// Bytes of one K or V tile.
  __host__ __device__ static constexpr std::size_t kv_bytes(int head_dim) {
    return static_cast<std::size_t>(kKeys) * head_dim * 2;
  }
  /// Bytes of shared memory to ask for: the tiles, and room to align them to 1024 bytes.
  __host__ __device__ static constexpr std::size_t shared_bytes(int head_dim) {
    return q_bytes(head_dim) + 2 * kStages * kv_bytes(head_dim) + kAlignment;
  }
};

/// Byte offset of 16-byte chunk `chunk` of row `row` in a tile of `rows` rows stored as 64-column
/// panels with the 128-byte swizzle (WgmmaTile).
__host__ __device__ constexpr unsigned panel_chunk_offset(int row, int chunk, int rows) {
  return static_cast<unsigned>((chunk / 8) * rows * 128 + row * 128 +
                               ((chunk % 8) ^ (row % 8)) * 16);
}

/// panel_chunk_offset for a tile of kRows rows, as the function object load_rows (mma_tiles.cuh)
/// takes: the layout of flash_wgmma's tiles.
template <int kRows>
struct PanelRows {
  /// The byte offset of 16-byte chunk `chunk` of row `row`.
  __host__ __device__ constexpr unsigned operator()(int row, int chunk) const {
    return panel_chunk_offset(row, chunk, kRows);
  }
};

/// The work of block (blockIdx.x, blockIdx.y) of a fused kernel whose blocks own Tile::kQueries
/// queries and read keys Tile::kKeys at a time: x the query tile, y the head. Under the causal
/// mask the grid runs the query tiles last-first (block 0 takes the last queries; the handout's
/// question 6 asks why), and a block visits the key tiles only up to the one holding its last
/// query: every key after it is masked for all of the block's queries.
template <class Tile, int kHeadDim>
struct FlashBlock {
  int first_query;          ///< the block's first query
  int key_tiles;            ///< key tiles the block visits, from key 0
  int head;                 ///< the head (of heads_total()) the block works on
  std::size_t head_offset;  ///< where the head's Q, K, V and O start: head sequence head_dim

  /// The work of this block (blockIdx) for `shape`.
  __device__ explicit FlashBlock(const AttentionShape& shape)
      : FlashBlock(shape,
                   shape.causal ? query_tiles(shape) - 1 - static_cast<int>(blockIdx.x)
                                : static_cast<int>(blockIdx.x),
                   static_cast<int>(blockIdx.y)) {}

  /// The work of query tile `query_tile` of head `head_index`, wherever a schedule places it.
  __device__ FlashBlock(const AttentionShape& shape, int query_tile, int head_index)
      : first_query(query_tile * Tile::kQueries), head(head_index) {
    head_offset = static_cast<std::size_t>(head) * shape.sequence * kHeadDim;
    const int all_key_tiles = (shape.sequence + Tile::kKeys - 1) / Tile::kKeys;
    key_tiles = shape.causal
                    ? min(all_key_tiles, (first_query + Tile::kQueries - 1) / Tile::kKeys + 1)
                    : all_key_tiles;
  }

  /// Query tiles of a head.
  __host__ __device__ static constexpr int query_tiles(const AttentionShape& shape) {
    return (shape.sequence + Tile::kQueries - 1) / Tile::kQueries;
  }
};

}  // namespace lab13
