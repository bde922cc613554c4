// Lab 13 solution, steps past the core's flash_mma toward FlashAttention-2, in one kernel:
// - kRowBlocks = 1 (flash_mma_ex2): flash_mma with FlashAttention-2's exponentials
//   (fused_softmax.cuh), nothing else changed: 4 warps of 16 queries, Q in registers, the core's
//   warp_scores, and warp_add_pv's products (warp_add_pv_rows at one row block);
// - kRowBlocks = 2 (flash_mma_rows): FlashAttention-2's tiles at head_dim 128 on sm_80 and sm_90
//   (4 warps, 128 queries, tiles of 64 keys: 32 rows a warp). Every K and V fragment ldmatrix
//   brings from shared memory feeds two mma.sync instead of one, which halves the shared-memory
//   bytes per product (flash_mma at 16 rows reads 8 multiply-adds per byte: at Hopper's 128 bytes a
//   clock an SM, fewer than its tensor cores can do), and each K and V tile copied serves 128
//   queries instead of 64. The price is registers (the outputs of 32 rows: 128 a thread at head_dim
//   128), so Q is read from shared memory with each tile instead of held in registers, as
//   FlashAttention-2 does;
// - kRowBlocks = 2 with fused_softmax.cuh's flags and load_rows_unrolled's copies: flash_mma_lazy,
//   flash_mma_copies and flash_mma_chains (attention_steps.h says what each changes).
#pragma once

#include "attention_kernels.cuh"
#include "common/async_copy.cuh"
#include "fused_softmax.cuh"
#include "lab.h"
#include "mma_tiles.cuh"
#include "tiles.h"

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace lab13 {

/// flash_mma's tiles with kRowBlocks m16 row blocks a warp: 4 warps own 64 kRowBlocks queries.
template <int kRowBlocks>
struct MmaRowsTile : MmaTile {
  static constexpr int kQueries = MmaTile::kQueries * kRowBlocks;  ///< queries per block

  /// Bytes of the Q tile.
  __host__ __device__ static constexpr std::size_t q_bytes(int head_dim) {
    return static_cast<std::size_t>(kQueries) * head_dim * 2;
  }
  /// Bytes of shared memory: Q, kStages K tiles and kStages V tiles.
  __host__ __device__ static constexpr std::size_t shared_bytes(int head_dim) {
    return q_bytes(head_dim) + 2 * kStages * kv_bytes(head_dim);
  }
  /// Stage `stage`'s K tile.
  __device__ static unsigned char* k_tile(unsigned char* shared, int head_dim, int stage) {
    return shared + q_bytes(head_dim) + stage * kv_bytes(head_dim);
  }
  /// Stage `stage`'s V tile.
  __device__ static unsigned char* v_tile(unsigned char* shared, int head_dim, int stage) {
    return shared + q_bytes(head_dim) + (kStages + stage) * kv_bytes(head_dim);
  }
};

namespace {

// S = Q K^T for the warp's row blocks (rows first_row + 16 rb of the Q tile) and a K tile: per 16
// of head_dim, the row blocks' Q fragments, then per 16 keys one ldmatrix of K for 2 kRowBlocks
// products (mma_tiles.cuh's warp_scores gives the addresses). kPrefetch (flash_mma_prefetch): the
// Q fragments and first K fragment of step ks + 1 are loaded before step ks's products, as
// FlashAttention-2's gemm does, so that no step starts by waiting for shared memory (the loop stays
// rolled: 12 registers more, not a whole unrolled loop's).
template <int kHeadDim, int kRowBlocks, bool kPrefetch = false>
__device__ __forceinline__ void warp_scores_rows(float (&s)[kRowBlocks][MmaTile::kKeys / 8][4],
                                                 const unsigned char* q_tile, int first_row,
                                                 const unsigned char* k_tile, int lane) {
  constexpr int kSteps = kHeadDim / 16;
  const auto load_q = [&](std::uint32_t(&q)[kRowBlocks][4], int ks) {
#pragma unroll
    for (int rb = 0; rb < kRowBlocks; ++rb) {
      tc::ldmatrix_x4<false>(
          q[rb],
          tc::shared_address(q_tile + swizzled_chunk_offset(first_row + 16 * rb + lane % 16,
                                                            2 * ks + lane / 16, kHeadDim / 8)));
    }
  };
  const auto load_k = [&](std::uint32_t(&b)[4], int ks, int pair) {
    tc::ldmatrix_x4<false>(
        b,
        tc::shared_address(k_tile + swizzled_chunk_offset(16 * pair + (lane / 16) * 8 + lane % 8,
                                                          2 * ks + (lane / 8) % 2, kHeadDim / 8)));
  };
#pragma unroll
  for (int rb = 0; rb < kRowBlocks; ++rb)
#pragma unroll
    for (int j = 0; j < MmaTile::kKeys / 8; ++j)
      s[rb][j][0] = s[rb][j][1] = s[rb][j][2] = s[rb][j][3] = 0.0f;
  std::uint32_t q_next[kRowBlocks][4], b_next[4];  // kPrefetch: step ks + 1's first fragments
  if constexpr (kPrefetch) {
    load_q(q_next, 0);
    load_k(b_next, 0, 0);
  }
#pragma unroll 1  // fully unrolled, the early ldmatrix of later steps spill at 255 registers
  for (int ks = 0; ks < kSteps; ++ks) {
    std::uint32_t q[kRowBlocks][4], b_first[4];
    if constexpr (kPrefetch) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        b_first[e] = b_next[e];
#pragma unroll
        for (int rb = 0; rb < kRowBlocks; ++rb) q[rb][e] = q_next[rb][e];
      }
      const int next = ks + 1 < kSteps ? ks + 1 : ks;  // the last step reloads its own: harmless
      load_q(q_next, next);
      load_k(b_next, next, 0);
    } else {
      load_q(q, ks);
    }
#pragma unroll
    for (int pair = 0; pair < MmaTile::kKeys / 16; ++pair) {
      std::uint32_t b[4];
      if (kPrefetch && pair == 0) {
#pragma unroll
        for (int e = 0; e < 4; ++e) b[e] = b_first[e];
      } else {
        load_k(b, ks, pair);
      }
#pragma unroll
      for (int rb = 0; rb < kRowBlocks; ++rb) {
        tc::mma_m16n8k16_bf16(s[rb][2 * pair], q[rb], b[0], b[1]);
        tc::mma_m16n8k16_bf16(s[rb][2 * pair + 1], q[rb], b[2], b[3]);
      }
    }
  }
}

// load_rows (mma_tiles.cuh) for a tile of kRows rows whose 16-byte chunks the kThreads threads
// split evenly: thread i copies chunk i % kChunks of rows i / kChunks, i / kChunks + kThreads /
// kChunks, ..., so its column, its swizzle (row % 8 stays while rows step by a multiple of 8) and
// its offsets are fixed: kRows kChunks / kThreads copies at constant distances, where load_rows's
// loop divides and swizzles each chunk's index anew (about 25 instructions a copy).
template <int kHeadDim, int kThreads, int kRows>
__device__ __forceinline__ void load_rows_unrolled(unsigned char* tile, const __nv_bfloat16* tensor,
                                                   int first, int sequence) {
  constexpr int kChunks = kHeadDim / 8, kRowsAPass = kThreads / kChunks;
  static_assert(kThreads % kChunks == 0 && kRowsAPass % 8 == 0 && kRows % kRowsAPass == 0,
                "each thread keeps one column and one swizzle");
  const int chunk = threadIdx.x % kChunks, row = threadIdx.x / kChunks;
  unsigned char* destination = tile + swizzled_chunk_offset(row, chunk, kChunks);
  const __nv_bfloat16* source =
      tensor + static_cast<std::size_t>(first + row) * kHeadDim + chunk * 8;
#pragma unroll
  for (int pass = 0; pass < kRows / kRowsAPass; ++pass) {
    const bool inside = first + row + pass * kRowsAPass < sequence;
    cudalabs::async_copy_16_zero_fill(destination + pass * kRowsAPass * kChunks * 16,
                                      inside ? source + pass * kRowsAPass * kHeadDim : tensor,
                                      inside ? 16 : 0);
  }
}

// O += P V for keys 16 kk .. 16 kk + 15 of a V tile, every V fragment used by all row blocks
// (mma_tiles.cuh's warp_add_pv gives the addresses).
template <int kHeadDim, int kRowBlocks>
__device__ __forceinline__ void warp_add_pv_rows(float (&o)[kRowBlocks][kHeadDim / 8][4],
                                                 const std::uint32_t (&p)[kRowBlocks][4],
                                                 const unsigned char* v_tile, int kk, int lane) {
#pragma unroll
  for (int pair = 0; pair < kHeadDim / 16; ++pair) {
    std::uint32_t b[4];
    tc::ldmatrix_x4<true>(
        b,
        tc::shared_address(v_tile + swizzled_chunk_offset(16 * kk + ((lane / 8) % 2) * 8 + lane % 8,
                                                          2 * pair + lane / 16, kHeadDim / 8)));
#pragma unroll
    for (int rb = 0; rb < kRowBlocks; ++rb) {
      tc::mma_m16n8k16_bf16(o[rb][2 * pair], p[rb], b[0], b[1]);
      tc::mma_m16n8k16_bf16(o[rb][2 * pair + 1], p[rb], b[2], b[3]);
    }
  }
}

// [flash_mma_rows]
// kPrefetch: flash_mma_prefetch, warp_scores_rows's fragments loaded a step ahead. kSoftmax:
// fused_softmax.cuh's flags (kLazyRescale: flash_mma_lazy, the maximum allowed to stay behind and
// the 128 multiplications a thread that rescale the outputs skipped while it does; kShortChains:
// flash_mma_chains, the mask behind a branch and shorter chains of dependent instructions).
// kUnrolledCopies: flash_mma_copies, K and V copied by load_rows_unrolled.
template <int kHeadDim, int kRowBlocks, bool kPrefetch = false, int kSoftmax = 0,
          bool kUnrolledCopies = false>
__global__ void __launch_bounds__(MmaTile::kThreads) flash_mma_rows_kernel(AttentionArgs args) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using Tile = MmaRowsTile<kRowBlocks>;
  constexpr int kKeys = Tile::kKeys;
  extern __shared__ __align__(16) unsigned char shared[];  // Q, then the K stages, the V stages
  const AttentionShape& shape = args.shape;
  const int sequence = shape.sequence;
  const FlashBlock<Tile, kHeadDim> block(shape);
  const __nv_bfloat16 *q = args.q + block.head_offset, *k = args.k + block.head_offset,
                      *v = args.v + block.head_offset;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const auto load_keys = [&](int stage, int tile) {
    if constexpr (kUnrolledCopies) {
      load_rows_unrolled<kHeadDim, Tile::kThreads, kKeys>(Tile::k_tile(shared, kHeadDim, stage), k,
                                                          tile * kKeys, sequence);
      load_rows_unrolled<kHeadDim, Tile::kThreads, kKeys>(Tile::v_tile(shared, kHeadDim, stage), v,
                                                          tile * kKeys, sequence);
    } else {
      load_rows<kHeadDim, Tile::kThreads>(Tile::k_tile(shared, kHeadDim, stage), k, tile * kKeys,
                                          kKeys, sequence, SwizzledRows<kHeadDim>{});
      load_rows<kHeadDim, Tile::kThreads>(Tile::v_tile(shared, kHeadDim, stage), v, tile * kKeys,
                                          kKeys, sequence, SwizzledRows<kHeadDim>{});
    }
  };

  load_rows<kHeadDim, Tile::kThreads>(shared, q, block.first_query, Tile::kQueries, sequence,
                                      SwizzledRows<kHeadDim>{});
  cudalabs::async_copy_commit();
  load_keys(0, 0);
  cudalabs::async_copy_commit();

  const int first_row = warp * 16 * kRowBlocks;  // the warp's rows of the Q tile
  std::uint32_t q_fragments[kRowBlocks == 1 ? kHeadDim / 16 : 1][4];  // kRowBlocks 1: held
  if constexpr (kRowBlocks == 1) {
    cudalabs::async_copy_wait<1>();  // Q has landed; the first K and V tiles may still be coming
    __syncthreads();
    load_query_fragments<kHeadDim>(q_fragments, shared, warp, lane);
  }
  float o[kRowBlocks][kHeadDim / 8][4] = {};
  float row_max[kRowBlocks][2], row_sum[kRowBlocks][2];
  int rows[kRowBlocks][2];
#pragma unroll
  for (int rb = 0; rb < kRowBlocks; ++rb) {
    row_max[rb][0] = row_max[rb][1] = -INFINITY;
    row_sum[rb][0] = row_sum[rb][1] = 0.0f;
    rows[rb][0] = block.first_query + first_row + 16 * rb + lane / 4;
    rows[rb][1] = rows[rb][0] + 8;
  }
  const float scale_log2 = args.scale * kLog2e;

  for (int t = 0; t < block.key_tiles; ++t) {
    if (t + 1 < block.key_tiles) load_keys((t + 1) % Tile::kStages, t + 1);
    cudalabs::async_copy_commit();
    cudalabs::async_copy_wait<1>();  // Q (on the first tile) and this tile have landed
    __syncthreads();
    const int stage = t % Tile::kStages;

    float s[kRowBlocks][kKeys / 8][4];
    if constexpr (kRowBlocks == 1)
      warp_scores<kHeadDim>(s[0], q_fragments, Tile::k_tile(shared, kHeadDim, stage), lane);
    else
      warp_scores_rows<kHeadDim, kRowBlocks, kPrefetch>(
          s, shared, first_row, Tile::k_tile(shared, kHeadDim, stage), lane);
    const int first_key = t * kKeys;
    const bool edge =
        first_key + kKeys > sequence || (shape.causal && first_key + kKeys - 1 > block.first_query);
#pragma unroll
    for (int rb = 0; rb < kRowBlocks; ++rb) {
      if ((kSoftmax & kShortChains) == 0)
        scale_and_mask(s[rb], 1.0f, edge, first_key, rows[rb], shape);  // masked, not scaled
      else if (edge)
        scale_and_mask(s[rb], 1.0f, true, first_key, rows[rb], shape);
      float rescale[2];
      if (softmax_tile<kSoftmax>(s[rb], row_max[rb], row_sum[rb], rescale, scale_log2))
        rescale_output(o[rb], rescale);
    }
    // O += P V, the probabilities packed as flash_mma packs them, 16 keys at a time.
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      std::uint32_t p[kRowBlocks][4];
#pragma unroll
      for (int rb = 0; rb < kRowBlocks; ++rb) {
        p[rb][0] = pack_bf16(s[rb][2 * kk][0], s[rb][2 * kk][1]);
        p[rb][1] = pack_bf16(s[rb][2 * kk][2], s[rb][2 * kk][3]);
        p[rb][2] = pack_bf16(s[rb][2 * kk + 1][0], s[rb][2 * kk + 1][1]);
        p[rb][3] = pack_bf16(s[rb][2 * kk + 1][2], s[rb][2 * kk + 1][3]);
      }
      warp_add_pv_rows<kHeadDim, kRowBlocks>(o, p, Tile::v_tile(shared, kHeadDim, stage), kk, lane);
    }
    __syncthreads();  // every warp is done with this stage before the next iteration refills it
  }
#pragma unroll
  for (int rb = 0; rb < kRowBlocks; ++rb)
    store_output(o[rb], row_sum[rb], rows[rb], args.o + block.head_offset, kHeadDim, sequence);
#endif
}
// [flash_mma_rows]

}  // namespace
}  // namespace lab13
