/// @file labs/13_attention/mma_tiles.cuh
/// @brief Lab 13, given: the tensor-core plumbing of the fused kernels, which lab 11 taught.
/// Copying rows of Q, K or V into a shared tile (cp.async), and, for one warp of flash_mma, its
/// queries as mma.sync A fragments, S = Q K^T for one K tile, O += P V for 16 keys of one V tile,
/// and the stores of its output rows. Include it from your kernels.cu; nothing here is a TODO. What
/// the lab teaches (the loop over K and V tiles, the online softmax, the mask, the rescaled
/// accumulators) is yours to write.
///
/// A warp's accumulators, scores and outputs alike, are m16n8 blocks as mma.sync lays them out
/// (labs/11_tensor_cores/tensor_core_ptx.cuh): in block j, lane l holds element e (0 .. 3) of row
/// l / 4 + 8 (e / 2) and column 8 j + 2 (l % 4) + e % 2 of the warp's 16 rows. So a lane holds two
/// rows, and the 4 lanes of a quad (l / 4 the same) hold all the columns of those rows. The warp
/// helpers take the caller's `lane` (threadIdx.x % 32) and `warp` (threadIdx.x / 32).
#pragma once

#include "common/async_copy.cuh"
#include "labs/11_tensor_cores/tensor_core_ptx.cuh"
#include "tiles.h"

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace lab13 {

namespace tc = lab11::ptx;  // lab 11's wrappers: ldmatrix, mma.sync, descriptors, fences

/// Copies rows first .. first + rows - 1 of a (sequence x kHeadDim) BF16 tensor into a shared tile,
/// 16-byte chunk c of tile row r at byte `offset(r, c)`, with cp.async (the block's kThreads
/// threads share the chunks); rows past the sequence arrive as zeros. Committing the group and
/// waiting for it are the caller's.
template <int kHeadDim, int kThreads, class Offset>
__device__ __forceinline__ void load_rows(unsigned char* tile, const __nv_bfloat16* tensor,
                                          int first, int rows, int sequence, Offset offset) {
  constexpr int kChunks = kHeadDim / 8;
  for (int i = threadIdx.x; i < rows * kChunks; i += kThreads) {
    const int r = i / kChunks, c = i % kChunks;
    const bool inside = first + r < sequence;
    const __nv_bfloat16* source =
        tensor + static_cast<std::size_t>(inside ? first + r : 0) * kHeadDim + c * 8;
    cudalabs::async_copy_16_zero_fill(tile + offset(r, c), source, inside ? 16 : 0);
  }
}

/// Two floats rounded to BF16 in one 32-bit register, the first in the low half (mma's order).
__device__ __forceinline__ std::uint32_t pack_bf16(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const std::uint32_t*>(&pair);
}

// ---- flash_mma: its block's tiles, and one warp's 16 queries against them ----

/// Copies queries first_query .. first_query + 63 of the head's Q (`q`) into the Q tile of
/// flash_mma's shared memory `shared`, rows swizzled (SwizzledRows), zeros past the sequence.
template <int kHeadDim>
__device__ __forceinline__ void load_mma_query_tile(unsigned char* shared, const __nv_bfloat16* q,
                                                    int first_query, int sequence) {
  load_rows<kHeadDim, MmaTile::kThreads>(shared, q, first_query, MmaTile::kQueries, sequence,
                                         SwizzledRows<kHeadDim>{});
}

/// Copies key tile `tile` (keys 64 tile .. 64 tile + 63) of the head's K and V into stage `stage`
/// of flash_mma's shared memory, rows swizzled, zeros past the sequence.
template <int kHeadDim>
__device__ __forceinline__ void load_mma_key_tile(unsigned char* shared, int stage, int tile,
                                                  const __nv_bfloat16* k, const __nv_bfloat16* v,
                                                  int sequence) {
  const int first_key = tile * MmaTile::kKeys;
  load_rows<kHeadDim, MmaTile::kThreads>(MmaTile::k_tile(shared, kHeadDim, stage), k, first_key,
                                         MmaTile::kKeys, sequence, SwizzledRows<kHeadDim>{});
  load_rows<kHeadDim, MmaTile::kThreads>(MmaTile::v_tile(shared, kHeadDim, stage), v, first_key,
                                         MmaTile::kKeys, sequence, SwizzledRows<kHeadDim>{});
}

/// The warp's 16 queries (rows 16 warp .. 16 warp + 15 of the Q tile) as mma.sync A fragments, one
/// per 16 of head_dim: q[ks] holds columns 16 ks .. 16 ks + 15. One ldmatrix.x4 each: lane l gives
/// row 16 warp + l % 16, chunk 2 ks + l / 16.
template <int kHeadDim>
__device__ __forceinline__ void load_query_fragments(std::uint32_t (&q)[kHeadDim / 16][4],
                                                     const unsigned char* q_tile, int warp,
                                                     int lane) {
#pragma unroll
  for (int ks = 0; ks < kHeadDim / 16; ++ks) {
    tc::ldmatrix_x4<false>(
        q[ks],
        tc::shared_address(q_tile + swizzled_chunk_offset(warp * 16 + lane % 16, 2 * ks + lane / 16,
                                                          kHeadDim / 8)));
  }
}

/// S = Q K^T for the warp's 16 queries and the MmaTile::kKeys keys of a K tile, unscaled: s[j] is
/// the m16n8 block of keys 8 j .. 8 j + 7 (the file's comment gives the layout), overwritten. K is
/// stored key by key, which is the column-major B operand mma.sync wants: per 16 of head_dim and
/// per 16 keys, one ldmatrix.x4 gives the B fragments of two 8-key blocks (lane l gives key
/// 16 pair + (l / 16) 8 + l % 8, chunk 2 ks + (l / 8) % 2), then two mma.sync.
template <int kHeadDim>
__device__ __forceinline__ void warp_scores(float (&s)[MmaTile::kKeys / 8][4],
                                            const std::uint32_t (&q)[kHeadDim / 16][4],
                                            const unsigned char* k_tile, int lane) {
#pragma unroll
  for (int j = 0; j < MmaTile::kKeys / 8; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll
  for (int ks = 0; ks < kHeadDim / 16; ++ks) {
#pragma unroll
    for (int pair = 0; pair < MmaTile::kKeys / 16; ++pair) {
      std::uint32_t b[4];
      tc::ldmatrix_x4<false>(
          b, tc::shared_address(k_tile +
                                swizzled_chunk_offset(16 * pair + (lane / 16) * 8 + lane % 8,
                                                      2 * ks + (lane / 8) % 2, kHeadDim / 8)));
      tc::mma_m16n8k16_bf16(s[2 * pair], q[ks], b[0], b[1]);
      tc::mma_m16n8k16_bf16(s[2 * pair + 1], q[ks], b[2], b[3]);
    }
  }
}

/// O += P V for keys 16 kk .. 16 kk + 15 of a V tile: `p` is the warp's P for those keys as an
/// mma.sync A fragment (p[0]: row l / 4, keys 2 (l % 4) + {0, 1}; p[1]: 8 rows below; p[2], p[3]:
/// the same 8 keys on, each register two BF16, the first key in the low half), `o` the m16n8
/// blocks of the output (block j: columns 8 j .. 8 j + 7). V is stored key by key, so its B
/// fragments come from ldmatrix.trans: lane l gives key 16 kk + ((l / 8) % 2) 8 + l % 8, chunk
/// 2 pair + l / 16, for two 8-column blocks per ldmatrix.
template <int kHeadDim>
__device__ __forceinline__ void warp_add_pv(float (&o)[kHeadDim / 8][4],
                                            const std::uint32_t (&p)[4],
                                            const unsigned char* v_tile, int kk, int lane) {
#pragma unroll
  for (int pair = 0; pair < kHeadDim / 16; ++pair) {
    std::uint32_t b[4];
    tc::ldmatrix_x4<true>(
        b,
        tc::shared_address(v_tile + swizzled_chunk_offset(16 * kk + ((lane / 8) % 2) * 8 + lane % 8,
                                                          2 * pair + lane / 16, kHeadDim / 8)));
    tc::mma_m16n8k16_bf16(o[2 * pair], p, b[0], b[1]);
    tc::mma_m16n8k16_bf16(o[2 * pair + 1], p, b[2], b[3]);
  }
}

/// Stores row r (0: lane / 4, 1: eight rows below) of a warp's output blocks (o[j]: columns
/// 8 j .. 8 j + 7, as the file's comment lays them out; flash_wgmma's accumulators are laid out
/// the same) multiplied by `inverse`, as BF16 pairs: `row` is that row's query, `out` the head's O.
template <int kOutBlocks>
__device__ __forceinline__ void store_row(const float (&o)[kOutBlocks][4], int r, float inverse,
                                          int row, __nv_bfloat16* out, int head_dim) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int j = 0; j < kOutBlocks; ++j) {
    const int column = 8 * j + 2 * (lane % 4);
    *reinterpret_cast<__nv_bfloat162*>(out + static_cast<std::size_t>(row) * head_dim + column) =
        __floats2bfloat162_rn(o[j][2 * r] * inverse, o[j][2 * r + 1] * inverse);
  }
}

}  // namespace lab13
