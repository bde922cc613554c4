/// @file solutions/13_attention/heaviest_first.h
/// @brief Lab 13 solution: FlashAttention-3's order of a causal grid's blocks, longest first with
/// the heads in sections that share the L2 cache (flash_wgmma_ws_lpt).
///
/// Under the causal mask query tile t reads t + 1 key tiles: the last tile of a head does up to
/// query_tiles times the work of its first. The GPU starts blocks in the order of their index
/// (x fastest), each on the first SM free, so the makespan is a greedy list schedule's: with every
/// head's tiles heaviest first (FlashBlock's order) the grid is a saw of heavy and light blocks,
/// and a heavy block started late leaves SMs idle at the end (about 6 % at 64 heads of 32 tiles on
/// 132 SMs, 20 % at 8 tiles). Longest-processing-time first across heads instead: the last tile of
/// every head, then the tile before it of every head, and so on. Every head at once would read
/// every head's K and V at once, more than the L2 cache holds, so, as FlashAttention-3's tile
/// scheduler does, the heads go in sections whose K and V fit in kL2SectionBytes, each section
/// heaviest first.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__: the kernel and the CPU tests share the order

#include <cstdint>

namespace lab13 {

/// The K and V bytes a section of heads may read at once: FlashAttention-3's share of the L2 cache
/// (50 MiB on an H100 or H200).
constexpr std::int64_t kL2SectionBytes = std::int64_t{32} << 20;

/// A block's work in a schedule: which query tile of which head.
struct ScheduledTile {
  int query_tile;  ///< 0 .. query_tiles - 1
  int head;        ///< 0 .. heads - 1
};

/// Heads per section for K and V of `sequence` rows of `head_dim` BF16 each: as many as fit in
/// kL2SectionBytes, at least one, at most `heads`.
__host__ __device__ constexpr int heads_per_section(int sequence, int head_dim, int heads) {
  const std::int64_t head_bytes = std::int64_t{2} * 2 * sequence * head_dim;  // K and V
  const std::int64_t fit = kL2SectionBytes / head_bytes;
  return fit < 1 ? 1 : (fit > heads ? heads : static_cast<int>(fit));
}

/// The work of the block started `index`-th (0 .. query_tiles * heads - 1): sections of
/// `section_heads` heads in turn (the last may hold fewer), within one the last query tile of each
/// of its heads, then the tile before of each, down to tile 0.
__host__ __device__ constexpr ScheduledTile heaviest_first(int index, int query_tiles, int heads,
                                                           int section_heads) {
  const int section_blocks = section_heads * query_tiles;
  const int section = index / section_blocks;
  const int first_head = section * section_heads;
  const int heads_here = heads - first_head < section_heads ? heads - first_head : section_heads;
  const int within = index - section * section_blocks;
  return {query_tiles - 1 - within / heads_here, first_head + within % heads_here};
}

}  // namespace lab13
