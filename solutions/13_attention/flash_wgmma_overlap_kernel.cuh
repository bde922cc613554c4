// Lab 13 solution, a step past the challenge's flash_wgmma toward FlashAttention-3: the softmax of
// one tile runs while the tensor cores multiply the previous one (FlashAttention-3's
// intra-warpgroup overlap). flash_wgmma waits for S = Q K^T, computes the softmax, then waits for
// O += P V: the tensor cores idle through every softmax, the softmax units through every product.
// Here each warpgroup, at tile t, issues S(t+1) = Q K(t+1)^T and O += P(t) V(t) back to back
// (P(t) computed in the previous iteration), waits for S(t+1) alone, and computes its softmax while
// P(t) V(t) still runs; only the rescaling of O waits for that product. So K runs one tile ahead
// of V: each iteration copies K(t+2) and V(t+1) (cp.async, still by every thread: no TMA, no
// producer warps) into the stages K(t) and V(t-1) left, one barrier an iteration. The price:
// S(t+1) and P(t) live at once (as FlashAttention-3, the softmax works on S(t+1) in place and packs
// it into P's registers only once P(t) V(t) has landed: kKeys / 4 more registers a thread). The
// exponentials are flash_mma_ex2's (fused_softmax.cuh). Layouts and descriptors are flash_wgmma's;
// kKeys = 128 (flash_wgmma_overlap_128) takes key tiles of 128, as FlashAttention-3 does at
// head_dim 128: S = Q K^T as m64n128k16, whose B operand (K) is read once for twice the products,
// and half the iterations and barriers; its 160 KiB of shared memory leave one block an SM.
#pragma once

#include "attention_kernels.cuh"
#include "common/async_copy.cuh"
#include "flash_wgmma_kernel.cuh"  // issue_score_tile
#include "fused_softmax.cuh"
#include "lab.h"
#include "labs/11_tensor_cores/tensor_core_ptx.cuh"
#include "mma_tiles.cuh"
#include "tiles.h"
#include "wgmma_attention.cuh"

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace lab13 {

/// flash_wgmma's tiles with key tiles of kKeys keys (64: WgmmaTile's).
template <int kKeys_>
struct WgmmaKeysTile : WgmmaTile {
  static constexpr int kKeys = kKeys_;  ///< keys per K or V tile

  /// Bytes of one K or V tile.
  __host__ __device__ static constexpr std::size_t kv_bytes(int head_dim) {
    return static_cast<std::size_t>(kKeys) * head_dim * 2;
  }
  /// Bytes of shared memory to ask for: the tiles, and room to align them to 1024 bytes.
  __host__ __device__ static constexpr std::size_t shared_bytes(int head_dim) {
    return q_bytes(head_dim) + 2 * kStages * kv_bytes(head_dim) + kAlignment;
  }
};

namespace {

// Keeps the compiler from reusing registers an asynchronous wgmma still reads (its A operand)
// until the wait that follows.
template <int kCount>
__device__ __forceinline__ void wgmma_hold_operand(std::uint32_t (&a)[kCount][4]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(a[i][e])::"memory");
}

// The softmax of S(tile) (its product waited for), in place: masked, not scaled (the exponent of
// fused_softmax.cuh scales), and the factor the output needs in `rescale`, to apply once the
// product still running on the accumulators has landed. The other arguments are flash_wgmma's;
// kSteps and the return are fused_softmax.cuh's softmax_tile's.
template <int kKeys, int kSteps = 0>
__device__ __forceinline__ bool softmax_of_tile(float (&s_flat)[kKeys / 2], int tile,
                                                int first_query, const int (&rows)[2],
                                                const AttentionShape& shape, float (&row_max)[2],
                                                float (&row_sum)[2], float (&rescale)[2],
                                                float scale_log2) {
  float(&s)[kKeys / 8][4] = *reinterpret_cast<float(*)[kKeys / 8][4]>(&s_flat);
  const int first_key = tile * kKeys;
  const bool edge =
      first_key + kKeys > shape.sequence || (shape.causal && first_key + kKeys - 1 > first_query);
  if ((kSteps & kShortChains) == 0)
    scale_and_mask(s, 1.0f, edge, first_key, rows, shape);
  else if (edge)
    scale_and_mask(s, 1.0f, true, first_key, rows, shape);
  return softmax_tile<kSteps>(s, row_max, row_sum, rescale, scale_log2);
}

// The probabilities as wgmma's A operand from registers, 16 keys a step.
template <int kKeys>
__device__ __forceinline__ void pack_probabilities(const float (&s_flat)[kKeys / 2],
                                                   std::uint32_t (&p)[kKeys / 16][4]) {
#pragma unroll
  for (int kk = 0; kk < kKeys / 16; ++kk) {
#pragma unroll
    for (int e = 0; e < 4; ++e)
      p[kk][e] = pack_bf16(s_flat[8 * kk + 2 * e], s_flat[8 * kk + 2 * e + 1]);
  }
}

// [flash_wgmma_overlap]
template <int kHeadDim, int kKeys>
__global__ void __launch_bounds__(WgmmaTile::kThreads)
    flash_wgmma_overlap_kernel(AttentionArgs args) {
#if LAB11_HOPPER_DEVICE_CODE
  using Tile = WgmmaKeysTile<kKeys>;
  constexpr int kQueries = Tile::kQueries;
  constexpr int kOutBlocks = kHeadDim / 8;
  constexpr int kQBytes = static_cast<int>(WgmmaTile::q_bytes(kHeadDim));
  constexpr int kTileBytes = static_cast<int>(Tile::kv_bytes(kHeadDim));
  extern __shared__ unsigned char dynamic_shared[];
  unsigned char* base = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(dynamic_shared) + WgmmaTile::kAlignment - 1) &
      ~std::uintptr_t{WgmmaTile::kAlignment - 1});
  unsigned char* q_tile = base;
  unsigned char* k_tiles = base + kQBytes;
  unsigned char* v_tiles = k_tiles + WgmmaTile::kStages * kTileBytes;

  const AttentionShape& shape = args.shape;
  const int sequence = shape.sequence;
  const FlashBlock<Tile, kHeadDim> block(shape);
  const __nv_bfloat16 *q = args.q + block.head_offset, *k = args.k + block.head_offset,
                      *v = args.v + block.head_offset;
  const int warpgroup = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const PanelRows<kKeys> kv_layout;
  const auto load_tile = [&](unsigned char* tiles, const __nv_bfloat16* tensor, int tile) {
    load_rows<kHeadDim, WgmmaTile::kThreads>(tiles + (tile % Tile::kStages) * kTileBytes, tensor,
                                             tile * kKeys, kKeys, sequence, kv_layout);
  };

  float o_flat[kHeadDim / 2] = {};
  float(&o)[kOutBlocks][4] = *reinterpret_cast<float(*)[kOutBlocks][4]>(&o_flat);
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  const int first_row = block.first_query + 64 * warpgroup + 16 * warp + lane / 4;
  const int rows[2] = {first_row, first_row + 8};
  const float scale_log2 = args.scale * kLog2e;
  const std::uint32_t q_rows = tc::shared_address(q_tile) + 64 * warpgroup * 128;

  // S(tile) issued into s_flat; its softmax in place; P packed (the functions above).
  const auto issue_scores = [&](float(&s_flat)[kKeys / 2], int tile) {
    issue_score_tile<kHeadDim, kQueries, kKeys>(
        s_flat, q_rows, tc::shared_address(k_tiles + (tile % Tile::kStages) * kTileBytes));
  };
  const auto softmax_of = [&](float(&s_flat)[kKeys / 2], int tile, float(&rescale)[2]) {
    softmax_of_tile<kKeys>(s_flat, tile, block.first_query, rows, shape, row_max, row_sum, rescale,
                           scale_log2);
  };
  std::uint32_t p[kKeys / 16][4];  // P(t), the A operand of O += P(t) V(t)

  // Prologue: Q and K(0), then K(1) and V(0); S(0) and its softmax.
  load_rows<kHeadDim, WgmmaTile::kThreads>(q_tile, q, block.first_query, kQueries, sequence,
                                           PanelRows<kQueries>{});
  load_tile(k_tiles, k, 0);
  cudalabs::async_copy_commit();
  if (block.key_tiles > 1) load_tile(k_tiles, k, 1);
  load_tile(v_tiles, v, 0);
  cudalabs::async_copy_commit();
  cudalabs::async_copy_wait<1>();
  tc::fence_proxy_async_shared();
  __syncthreads();
  {
    float s_flat[kKeys / 2] = {};
    float rescale[2];
    tc::wgmma_hold(s_flat);  // the zeros written before the fence, not sunk past it
    tc::wgmma_fence();
    issue_scores(s_flat, 0);
    tc::wgmma_wait<0>();
    tc::wgmma_hold(s_flat);
    softmax_of(s_flat, 0, rescale);  // o is 0: no rescaling
    pack_probabilities<kKeys>(s_flat, p);
  }

  for (int t = 0; t < block.key_tiles; ++t) {
    // K(t + 1) and V(t) have landed for every thread, and every warpgroup is done with K(t) and
    // V(t - 1): their stages take K(t + 2) and V(t + 1).
    cudalabs::async_copy_wait<0>();
    tc::fence_proxy_async_shared();
    __syncthreads();
    if (t + 2 < block.key_tiles) load_tile(k_tiles, k, t + 2);
    if (t + 1 < block.key_tiles) load_tile(v_tiles, v, t + 1);
    cudalabs::async_copy_commit();

    const bool more = t + 1 < block.key_tiles;
    float s_flat[kKeys / 2] = {};
    tc::wgmma_hold(s_flat);  // the zeros written before the fence, not sunk past it
    tc::wgmma_fence();       // the accumulators of O were rescaled, S's zeroed
    if (more) issue_scores(s_flat, t + 1);
    const std::uint32_t v_panels = tc::shared_address(v_tiles + (t % Tile::kStages) * kTileBytes);
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      const std::uint64_t b = tc::wgmma_descriptor(v_panels + kk * 16 * 128, kKeys * 128, 1024);
      ptx::wgmma_bf16_rs<kHeadDim>(o_flat, p[kk], b, 1);
    }
    tc::wgmma_commit();
    if (more) {
      // S(t + 1) has landed (P(t) V(t) may still run): its softmax, while the tensor cores work.
      tc::wgmma_wait<1>();
      tc::wgmma_hold(s_flat);
      float rescale[2];
      softmax_of(s_flat, t + 1, rescale);
      tc::wgmma_wait<0>();
      tc::wgmma_hold(o_flat);
      wgmma_hold_operand(p);  // p's registers stay P(t)'s until the product that reads them is done
      rescale_output(o, rescale);
      pack_probabilities<kKeys>(s_flat, p);
    } else {
      tc::wgmma_wait<0>();
      tc::wgmma_hold(o_flat);
    }
  }
  store_output(o, row_sum, rows, args.o + block.head_offset, kHeadDim, sequence);
#endif
}
// [flash_wgmma_overlap]

}  // namespace
}  // namespace lab13
