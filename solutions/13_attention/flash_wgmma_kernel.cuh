// Lab 13 solution, the optional challenge: flash_wgmma, step 5's FlashAttention on Hopper's
// warpgroup MMA (sm_90a).
//
// A block of two warpgroups owns 128 queries, 64 per warpgroup. The tiles are stored as wgmma reads
// them (64-column panels, the 128-byte swizzle): S = Q K^T is 8 (head_dim 128) wgmma m64n64k16
// reading Q and K from shared memory through descriptors, no ldmatrix; O += P V is 4 wgmma m64nDk16
// whose A operand (P) comes from registers, the accumulator layout being wgmma's A-register layout
// too, and whose B operand (V) is read MN-major. The mask, the online softmax and the final
// division are step 5's functions (attention_kernels.cuh): a warp's rows of the m64 accumulators
// are laid out as its m16n8 blocks of mma.sync. The copies are still cp.async by every thread (no
// TMA, no warp specialization, no overlap of the softmax with the next tile's products): the kernel
// to build on, not FlashAttention-3.
#pragma once

#include "attention_kernels.cuh"
#include "common/async_copy.cuh"
#include "lab.h"
#include "labs/11_tensor_cores/tensor_core_ptx.cuh"
#include "mma_tiles.cuh"
#include "tiles.h"
#include "wgmma_attention.cuh"

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace lab13 {
namespace {

// [flash_wgmma]
// S = Q K(tile)^T for a warpgroup's 64 queries, issued and committed, not waited for: both operands
// K-major in load_rows's panels, so per 16 of head_dim the descriptors move 32 bytes along the
// rows, and to the next panel (kRows rows of 128 bytes) every 64. `q_rows`: the warpgroup's first
// row of Q.
template <int kHeadDim, int kQueries, int kKeys>
__device__ __forceinline__ void issue_score_tile(float (&s_flat)[kKeys / 2], std::uint32_t q_rows,
                                                 std::uint32_t k_panels) {
#pragma unroll
  for (int ks = 0; ks < kHeadDim / 16; ++ks) {
    const std::uint64_t a =
        tc::wgmma_descriptor(q_rows + (ks / 4) * kQueries * 128 + (ks % 4) * 32, 16, 1024);
    const std::uint64_t b =
        tc::wgmma_descriptor(k_panels + (ks / 4) * kKeys * 128 + (ks % 4) * 32, 16, 1024);
    ptx::wgmma_bf16_ss<kKeys>(s_flat, a, b, ks > 0 ? 1 : 0);
  }
  tc::wgmma_commit();
}

// kBlocksPerSm: the registers a thread may use are capped so that this many blocks fit on an SM
// (2: 128 registers; at 1 the kernel takes 159 at head_dim 128 and a second block does not fit),
// so that one block's softmax can run while the other's wgmma do: the rung flash_wgmma_2cta.
template <int kHeadDim, int kBlocksPerSm = 1>
__global__ void __launch_bounds__(WgmmaTile::kThreads, kBlocksPerSm)
    flash_wgmma_kernel(AttentionArgs args) {
#if LAB11_HOPPER_DEVICE_CODE
  constexpr int kQueries = WgmmaTile::kQueries, kKeys = WgmmaTile::kKeys;
  constexpr int kScoreBlocks = kKeys / 8;   // 8-key blocks of the m64n64 scores
  constexpr int kOutBlocks = kHeadDim / 8;  // 8-column blocks of the m64nD output
  constexpr int kQBytes = static_cast<int>(WgmmaTile::q_bytes(kHeadDim));
  constexpr int kTileBytes = static_cast<int>(WgmmaTile::kv_bytes(kHeadDim));
  extern __shared__ unsigned char dynamic_shared[];
  unsigned char* base = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(dynamic_shared) + WgmmaTile::kAlignment - 1) &
      ~std::uintptr_t{WgmmaTile::kAlignment - 1});
  unsigned char* q_tile = base;
  unsigned char* k_tiles = base + kQBytes;
  unsigned char* v_tiles = k_tiles + WgmmaTile::kStages * kTileBytes;

  const AttentionShape& shape = args.shape;
  const int sequence = shape.sequence;
  const FlashBlock<WgmmaTile, kHeadDim> block(shape);  // its queries, head and key tiles
  const __nv_bfloat16 *q = args.q + block.head_offset, *k = args.k + block.head_offset,
                      *v = args.v + block.head_offset;
  const int warpgroup = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const PanelRows<kQueries> q_layout;
  const PanelRows<kKeys> kv_layout;

  load_rows<kHeadDim, WgmmaTile::kThreads>(q_tile, q, block.first_query, kQueries, sequence,
                                           q_layout);
  cudalabs::async_copy_commit();
  load_rows<kHeadDim, WgmmaTile::kThreads>(k_tiles, k, 0, kKeys, sequence, kv_layout);
  load_rows<kHeadDim, WgmmaTile::kThreads>(v_tiles, v, 0, kKeys, sequence, kv_layout);
  cudalabs::async_copy_commit();

  float o_flat[kHeadDim / 2] = {};
  float(&o)[kOutBlocks][4] = *reinterpret_cast<float(*)[kOutBlocks][4]>(&o_flat);
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  const int first_row = block.first_query + 64 * warpgroup + 16 * warp + lane / 4;
  const int rows[2] = {first_row, first_row + 8};
  const float scale_log2 = args.scale * kLog2e;
  // This warpgroup's 64 rows of Q in every panel (a panel: kQueries rows of 128 bytes).
  const std::uint32_t q_rows = tc::shared_address(q_tile) + 64 * warpgroup * 128;

  for (int t = 0; t < block.key_tiles; ++t) {
    if (t + 1 < block.key_tiles) {
      const int stage = (t + 1) % WgmmaTile::kStages;
      load_rows<kHeadDim, WgmmaTile::kThreads>(k_tiles + stage * kTileBytes, k, (t + 1) * kKeys,
                                               kKeys, sequence, kv_layout);
      load_rows<kHeadDim, WgmmaTile::kThreads>(v_tiles + stage * kTileBytes, v, (t + 1) * kKeys,
                                               kKeys, sequence, kv_layout);
    }
    cudalabs::async_copy_commit();
    cudalabs::async_copy_wait<1>();  // Q (on the first tile) and this tile have landed
    tc::fence_proxy_async_shared();  // this thread's copies, before the tensor cores read them
    __syncthreads();
    const std::uint32_t k_panels =
        tc::shared_address(k_tiles + (t % WgmmaTile::kStages) * kTileBytes);
    const std::uint32_t v_panels =
        tc::shared_address(v_tiles + (t % WgmmaTile::kStages) * kTileBytes);

    float s_flat[kKeys / 2] = {};
    tc::wgmma_fence();
    issue_score_tile<kHeadDim, kQueries, kKeys>(s_flat, q_rows, k_panels);
    tc::wgmma_wait<0>();
    tc::wgmma_hold(s_flat);
    float(&s)[kScoreBlocks][4] = *reinterpret_cast<float(*)[kScoreBlocks][4]>(&s_flat);

    const int first_key = t * kKeys;
    const bool edge =
        first_key + kKeys > sequence || (shape.causal && first_key + kKeys - 1 > block.first_query);
    scale_and_mask(s, scale_log2, edge, first_key, rows, shape);
    online_softmax(s, o, row_max, row_sum);

    // O += P V: P from registers (16 keys per step), V MN-major: 16 rows down per step, its
    // 64-column panels kKeys * 128 bytes apart.
    std::uint32_t p[kKeys / 16][4];
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      p[kk][0] = pack_bf16(s[2 * kk][0], s[2 * kk][1]);
      p[kk][1] = pack_bf16(s[2 * kk][2], s[2 * kk][3]);
      p[kk][2] = pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      p[kk][3] = pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3]);
    }
    tc::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      const std::uint64_t b = tc::wgmma_descriptor(v_panels + kk * 16 * 128, kKeys * 128, 1024);
      ptx::wgmma_bf16_rs<kHeadDim>(o_flat, p[kk], b, 1);
    }
    tc::wgmma_commit();
    tc::wgmma_wait<0>();
    tc::wgmma_hold(o_flat);
    __syncthreads();  // both warpgroups are done with this stage before it is refilled
  }
  store_output(o, row_sum, rows, args.o + block.head_offset, kHeadDim, sequence);
#endif
}
// [flash_wgmma]

}  // namespace
}  // namespace lab13
