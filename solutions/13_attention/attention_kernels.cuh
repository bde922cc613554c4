// Lab 13 solution: FlashAttention's forward pass on mma.sync (step 5 of the core). The naive
// attention (attention_naive.cuh) and the tensor-core plumbing (mma_tiles.cuh: the copies, the
// fragments of Q, S = Q K^T and O += P V for one warp and one tile, the stores) are given code in
// the lab's folder; the Hopper kernel, the optional challenge, is flash_wgmma_kernel.cuh.
//
// flash_mma (FlashAttention-2's forward pass on mma.sync): a block of 4 warps owns 64 queries, 16
// per warp. The warp's Q fragments are loaded once (ldmatrix) and stay in registers. K and V tiles
// of 64 keys stream through two shared-memory stages (cp.async, the next tile loading while this
// one is used). Per tile a warp computes its 16 x 64 scores with mma.sync m16n8k16 into FP32
// accumulators, masks them (past the sequence, and after the query under the causal mask), and
// updates the online softmax in registers: the rows' maximum and sum, the output accumulators
// rescaled by exp(old max - new max) when the maximum grows. The exponentials are rounded to BF16
// and used at once as the A operand of O += P V: an m16n8 accumulator tile laid out by lanes is
// exactly the A fragment of the next mma for the same rows, so P never leaves the registers. At the
// end each row is divided by its sum. Per head, Q, K, V are read once per query tile and O written
// once: no score reaches memory. Under the causal mask a query tile stops at its diagonal tile, and
// the grid runs the longest tiles (the last queries) first.
//
// scale_and_mask, online_softmax and store_output work on the accumulators as mma.sync lays them
// out; flash_wgmma's are laid out the same, and it calls them too.
#pragma once

#include "common/async_copy.cuh"
#include "lab.h"
#include "mma_tiles.cuh"
#include "softmax_kernels.cuh"
#include "tiles.h"

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace lab13 {

// Scales a thread's scores to log2 units and masks those of keys past the sequence or, under the
// causal mask, after their query. Block j, element e of s is key first_key + 8 j + 2 (lane % 4) +
// e % 2 of query rows[e / 2].
template <int kScoreBlocks>
__device__ __forceinline__ void scale_and_mask(float (&s)[kScoreBlocks][4], float scale_log2,
                                               bool edge, int first_key, const int (&rows)[2],
                                               const AttentionShape& shape) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int j = 0; j < kScoreBlocks; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float x = s[j][e] * scale_log2;
      if (edge) {
        const int key = first_key + 8 * j + 2 * (lane % 4) + e % 2;
        if (key >= shape.sequence || (shape.causal && key > rows[e / 2])) x = -INFINITY;
      }
      s[j][e] = x;
    }
  }
}

// The online softmax of one tile for a thread's two rows (r = 0: row lane / 4, r = 1: eight rows
// below), whose scores (already in log2 units, masked) are s[block][e] with e / 2 == r:
// replaces them by exp2(s - new max), rescales the row's sum and the output accumulators
// (o[block][e], e / 2 == r), and updates the maximum. The 4 lanes of a quad share the rows.
template <int kScoreBlocks, int kOutBlocks>
__device__ __forceinline__ void online_softmax(float (&s)[kScoreBlocks][4],
                                               float (&o)[kOutBlocks][4], float (&row_max)[2],
                                               float (&row_sum)[2]) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < kScoreBlocks; ++j)
      tile_max = fmaxf(tile_max, fmaxf(s[j][2 * r], s[j][2 * r + 1]));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(kFullMask, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(kFullMask, tile_max, 2));
    const float new_max = fmaxf(row_max[r], tile_max);
    const float base = new_max == -INFINITY ? 0.0f : new_max;  // every key masked so far
    const float rescale = exp2f(row_max[r] - base);            // 0 on the first tile
    row_max[r] = new_max;
    row_sum[r] *= rescale;
#pragma unroll
    for (int j = 0; j < kOutBlocks; ++j) {
      o[j][2 * r] *= rescale;
      o[j][2 * r + 1] *= rescale;
    }
#pragma unroll
    for (int j = 0; j < kScoreBlocks; ++j) {
#pragma unroll
      for (int e = 2 * r; e < 2 * r + 2; ++e) {
        s[j][e] = exp2f(s[j][e] - base);
        row_sum[r] += s[j][e];
      }
    }
  }
}

// Divides each of the thread's two rows of output by its sum (the quad's four partial sums added)
// and stores the rows inside the sequence as BF16.
template <int kOutBlocks>
__device__ __forceinline__ void store_output(const float (&o)[kOutBlocks][4],
                                             const float (&row_sum)[2], const int (&rows)[2],
                                             __nv_bfloat16* out, int head_dim, int sequence) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = row_sum[r];
    sum += __shfl_xor_sync(kFullMask, sum, 1);
    sum += __shfl_xor_sync(kFullMask, sum, 2);
    if (rows[r] < sequence) store_row(o, r, 1.0f / sum, rows[r], out, head_dim);
  }
}

namespace {

// [flash_mma]
template <int kHeadDim>
__global__ void __launch_bounds__(MmaTile::kThreads) flash_mma_kernel(AttentionArgs args) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int kKeys = MmaTile::kKeys;
  extern __shared__ __align__(16) unsigned char shared[];  // Q, then the K stages, the V stages
  const AttentionShape& shape = args.shape;
  const int sequence = shape.sequence;
  const FlashBlock<MmaTile, kHeadDim> block(shape);  // its queries, head and key tiles
  const __nv_bfloat16 *q = args.q + block.head_offset, *k = args.k + block.head_offset,
                      *v = args.v + block.head_offset;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  load_mma_query_tile<kHeadDim>(shared, q, block.first_query, sequence);
  cudalabs::async_copy_commit();
  load_mma_key_tile<kHeadDim>(shared, 0, 0, k, v, sequence);
  cudalabs::async_copy_commit();
  cudalabs::async_copy_wait<1>();  // Q has landed; the first K and V tiles may still be coming
  __syncthreads();

  std::uint32_t q_fragments[kHeadDim / 16][4];  // the warp's 16 queries, for the whole loop
  load_query_fragments<kHeadDim>(q_fragments, shared, warp, lane);
  float o[kHeadDim / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  const int rows[2] = {block.first_query + warp * 16 + lane / 4,
                       block.first_query + warp * 16 + lane / 4 + 8};
  const float scale_log2 = args.scale * kLog2e;

  for (int t = 0; t < block.key_tiles; ++t) {
    if (t + 1 < block.key_tiles)  // the next tile into the other stage, while this one is used
      load_mma_key_tile<kHeadDim>(shared, (t + 1) % MmaTile::kStages, t + 1, k, v, sequence);
    cudalabs::async_copy_commit();  // an empty group on the last tile keeps the count right
    cudalabs::async_copy_wait<1>();
    __syncthreads();
    const int stage = t % MmaTile::kStages;

    float s[kKeys / 8][4];
    warp_scores<kHeadDim>(s, q_fragments, MmaTile::k_tile(shared, kHeadDim, stage), lane);
    const int first_key = t * kKeys;
    const bool edge =
        first_key + kKeys > sequence || (shape.causal && first_key + kKeys - 1 > block.first_query);
    scale_and_mask(s, scale_log2, edge, first_key, rows, shape);
    online_softmax(s, o, row_max, row_sum);

    // O += P V: the probabilities of 16 keys, blocks 2 kk and 2 kk + 1 of s packed two BF16 to a
    // register, are the A fragment of the product as they lie.
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      const std::uint32_t p[4] = {pack_bf16(s[2 * kk][0], s[2 * kk][1]),
                                  pack_bf16(s[2 * kk][2], s[2 * kk][3]),
                                  pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                  pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
      warp_add_pv<kHeadDim>(o, p, MmaTile::v_tile(shared, kHeadDim, stage), kk, lane);
    }
    __syncthreads();  // every warp is done with this stage before the next iteration refills it
  }
  store_output(o, row_sum, rows, args.o + block.head_offset, kHeadDim, sequence);
#endif
}
// [flash_mma]

}  // namespace
}  // namespace lab13
