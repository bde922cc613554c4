// Lab 13 solution: attention's forward pass.
//
// attention_naive: three kernels. One thread per score computes S = scale * q . k in FP32 (keys
// after the query -infinity under the causal mask) into a sequence x sequence array per head; step
// 1's online softmax turns each row into probabilities in place; one thread per output sums
// P[i][j] * V[j][c]. The scores make a round trip through memory: 4 sequence^2 bytes per head
// written, read twice and written again, against 4 head_dim sequence bytes of Q, K, V and O.
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
// flash_wgmma: the same algorithm on Hopper's warpgroup MMA. A block of two warpgroups owns 128
// queries, 64 per warpgroup. The tiles are stored as wgmma reads them (64-column panels, the
// 128-byte swizzle): S = Q K^T is 8 (head_dim 128) wgmma m64n64k16 reading Q and K from shared
// memory through descriptors, no ldmatrix; O += P V is 4 wgmma m64nDk16 whose A operand (P) comes
// from registers, the accumulator layout being wgmma's A-register layout too, and whose B operand
// (V) is read MN-major. The copies are still cp.async by every thread (no TMA, no warp
// specialization, no overlap of the softmax with the next tile's products): the kernel to build on,
// not FlashAttention-3.
#pragma once

#include "common/async_copy.cuh"
#include "lab.h"
#include "labs/11_tensor_cores/tensor_core_ptx.cuh"
#include "tiles.h"
#include "wgmma_attention.cuh"

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace lab13 {
namespace {

namespace tc = lab11::ptx;  // lab 11's wrappers: ldmatrix, mma.sync, descriptors, fences

constexpr unsigned kAttentionFullMask = 0xFFFFFFFFu;
constexpr float kAttentionLog2e = 1.4426950408889634f;

__global__ void attention_scores_kernel(AttentionArgs args, float* scores) {
  const AttentionShape& shape = args.shape;
  const int key = blockIdx.x * blockDim.x + threadIdx.x;
  const int query = blockIdx.y * blockDim.y + threadIdx.y;
  if (query >= shape.sequence || key >= shape.sequence) return;
  const std::size_t head = blockIdx.z;
  const std::size_t head_offset = head * shape.sequence * shape.head_dim;
  const __nv_bfloat16* q = args.q + head_offset + static_cast<std::size_t>(query) * shape.head_dim;
  const __nv_bfloat16* k = args.k + head_offset + static_cast<std::size_t>(key) * shape.head_dim;
  float dot = 0.0f;
  for (int c = 0; c < shape.head_dim; ++c) dot += __bfloat162float(q[c]) * __bfloat162float(k[c]);
  const bool masked = shape.causal && key > query;
  scores[(head * shape.sequence + query) * shape.sequence + key] =
      masked ? -INFINITY : dot * args.scale;
}

__global__ void attention_values_kernel(AttentionArgs args, const float* probabilities) {
  const AttentionShape& shape = args.shape;
  const int query = blockIdx.x, column = threadIdx.x;
  const std::size_t head = blockIdx.y;
  const float* p = probabilities + (head * shape.sequence + query) * shape.sequence;
  const __nv_bfloat16* v = args.v + head * shape.sequence * shape.head_dim + column;
  const int keys = shape.causal ? query + 1 : shape.sequence;  // the rest have probability 0
  float sum = 0.0f;
  for (int j = 0; j < keys; ++j)
    sum += p[j] * __bfloat162float(v[static_cast<std::size_t>(j) * shape.head_dim]);
  args.o[(head * shape.sequence + query) * shape.head_dim + column] = __float2bfloat16(sum);
}

// Two floats rounded to BF16 in one 32-bit register, the first in the low half (mma's order).
__device__ __forceinline__ std::uint32_t pack_bf16(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const std::uint32_t*>(&pair);
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
    tile_max = fmaxf(tile_max, __shfl_xor_sync(kAttentionFullMask, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(kAttentionFullMask, tile_max, 2));
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

// Divides the thread's output accumulators by their rows' sums and stores them as BF16, the rows
// inside the sequence only.
template <int kOutBlocks>
__device__ __forceinline__ void store_output(const float (&o)[kOutBlocks][4],
                                             const float (&row_sum)[2], const int (&rows)[2],
                                             __nv_bfloat16* out, int head_dim, int sequence) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = row_sum[r];
    sum += __shfl_xor_sync(kAttentionFullMask, sum, 1);
    sum += __shfl_xor_sync(kAttentionFullMask, sum, 2);
    if (rows[r] >= sequence) continue;
    const float inverse = 1.0f / sum;
#pragma unroll
    for (int j = 0; j < kOutBlocks; ++j) {
      const int column = 8 * j + 2 * (lane % 4);
      *reinterpret_cast<__nv_bfloat162*>(out + static_cast<std::size_t>(rows[r]) * head_dim +
                                         column) =
          __floats2bfloat162_rn(o[j][2 * r] * inverse, o[j][2 * r + 1] * inverse);
    }
  }
}

// Copies rows first .. first + rows - 1 of a (sequence x kHeadDim) tensor into a shared tile at the
// chunk offsets `offset(row, chunk)` gives; rows past the sequence arrive as zeros.
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

// [flash_mma]
template <int kHeadDim>
__global__ void __launch_bounds__(MmaTile::kThreads) flash_mma_kernel(AttentionArgs args) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int kQueries = MmaTile::kQueries, kKeys = MmaTile::kKeys;
  constexpr int kChunks = kHeadDim / 8;     // 16-byte chunks per row
  constexpr int kDimSteps = kHeadDim / 16;  // k steps of S = Q K^T
  constexpr int kScoreBlocks = kKeys / 8;   // 8-key blocks of a warp's scores
  constexpr int kOutBlocks = kHeadDim / 8;  // 8-column blocks of a warp's output
  constexpr int kTileBytes = kKeys * kHeadDim * 2;
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned char* q_tile = shared;
  unsigned char* k_tiles = shared + kQueries * kHeadDim * 2;
  unsigned char* v_tiles = k_tiles + MmaTile::kStages * kTileBytes;

  const AttentionShape& shape = args.shape;
  const int sequence = shape.sequence;
  const int query_tiles = (sequence + kQueries - 1) / kQueries;
  const int first_query = (shape.causal ? query_tiles - 1 - blockIdx.x : blockIdx.x) * kQueries;
  const std::size_t head_offset = static_cast<std::size_t>(blockIdx.y) * sequence * kHeadDim;
  const __nv_bfloat16 *q = args.q + head_offset, *k = args.k + head_offset,
                      *v = args.v + head_offset;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const auto swizzled = [](int row, int chunk) {
    return swizzled_chunk_offset(row, chunk, kChunks);
  };
  const int all_key_tiles = (sequence + kKeys - 1) / kKeys;
  const int key_tiles =
      shape.causal ? min(all_key_tiles, (first_query + kQueries - 1) / kKeys + 1) : all_key_tiles;

  load_rows<kHeadDim, MmaTile::kThreads>(q_tile, q, first_query, kQueries, sequence, swizzled);
  cudalabs::async_copy_commit();
  load_rows<kHeadDim, MmaTile::kThreads>(k_tiles, k, 0, kKeys, sequence, swizzled);
  load_rows<kHeadDim, MmaTile::kThreads>(v_tiles, v, 0, kKeys, sequence, swizzled);
  cudalabs::async_copy_commit();
  cudalabs::async_copy_wait<1>();  // Q has landed; the first K and V tiles may still be coming
  __syncthreads();

  // The warp's 16 queries as A fragments, for the whole loop: lane l gives row l % 16, chunk l
  // / 16.
  std::uint32_t q_fragments[kDimSteps][4];
#pragma unroll
  for (int ks = 0; ks < kDimSteps; ++ks) {
    tc::ldmatrix_x4<false>(
        q_fragments[ks],
        tc::shared_address(q_tile + swizzled(warp * 16 + lane % 16, 2 * ks + lane / 16)));
  }
  float o[kOutBlocks][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  const int rows[2] = {first_query + warp * 16 + lane / 4, first_query + warp * 16 + lane / 4 + 8};
  const float scale_log2 = args.scale * kAttentionLog2e;

  for (int t = 0; t < key_tiles; ++t) {
    if (t + 1 < key_tiles) {  // the next tile into the other stage, while this one is used
      const int stage = (t + 1) % MmaTile::kStages;
      load_rows<kHeadDim, MmaTile::kThreads>(k_tiles + stage * kTileBytes, k, (t + 1) * kKeys,
                                             kKeys, sequence, swizzled);
      load_rows<kHeadDim, MmaTile::kThreads>(v_tiles + stage * kTileBytes, v, (t + 1) * kKeys,
                                             kKeys, sequence, swizzled);
    }
    cudalabs::async_copy_commit();  // an empty group on the last tile keeps the count right
    cudalabs::async_copy_wait<1>();
    __syncthreads();
    const unsigned char* k_tile = k_tiles + (t % MmaTile::kStages) * kTileBytes;
    const unsigned char* v_tile = v_tiles + (t % MmaTile::kStages) * kTileBytes;

    // S = Q K^T: per k step, one ldmatrix.x4 per 16 keys (B fragments of two 8-key blocks).
    float s[kScoreBlocks][4] = {};
#pragma unroll
    for (int ks = 0; ks < kDimSteps; ++ks) {
#pragma unroll
      for (int pair = 0; pair < kScoreBlocks / 2; ++pair) {
        std::uint32_t b[4];
        tc::ldmatrix_x4<false>(
            b, tc::shared_address(k_tile + swizzled(16 * pair + (lane / 16) * 8 + lane % 8,
                                                    2 * ks + (lane / 8) % 2)));
        tc::mma_m16n8k16_bf16(s[2 * pair], q_fragments[ks], b[0], b[1]);
        tc::mma_m16n8k16_bf16(s[2 * pair + 1], q_fragments[ks], b[2], b[3]);
      }
    }
    const int first_key = t * kKeys;
    const bool edge =
        first_key + kKeys > sequence || (shape.causal && first_key + kKeys - 1 > first_query);
    scale_and_mask(s, scale_log2, edge, first_key, rows, shape);
    online_softmax(s, o, row_max, row_sum);

    // O += P V: the probabilities of 16 keys are an A fragment as they lie; V's B fragments come
    // from ldmatrix.trans (V is stored key by key, the B operand wants it column by column).
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      const std::uint32_t a[4] = {pack_bf16(s[2 * kk][0], s[2 * kk][1]),
                                  pack_bf16(s[2 * kk][2], s[2 * kk][3]),
                                  pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                  pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int pair = 0; pair < kOutBlocks / 2; ++pair) {
        std::uint32_t b[4];
        tc::ldmatrix_x4<true>(
            b, tc::shared_address(v_tile + swizzled(16 * kk + ((lane / 8) % 2) * 8 + lane % 8,
                                                    2 * pair + lane / 16)));
        tc::mma_m16n8k16_bf16(o[2 * pair], a, b[0], b[1]);
        tc::mma_m16n8k16_bf16(o[2 * pair + 1], a, b[2], b[3]);
      }
    }
    __syncthreads();  // every warp is done with this stage before the next iteration refills it
  }
  store_output(o, row_sum, rows, args.o + head_offset, kHeadDim, sequence);
#endif
}
// [flash_mma]

// [flash_wgmma]
template <int kHeadDim>
__global__ void __launch_bounds__(WgmmaTile::kThreads) flash_wgmma_kernel(AttentionArgs args) {
#if LAB11_HOPPER_DEVICE_CODE
  constexpr int kQueries = WgmmaTile::kQueries, kKeys = WgmmaTile::kKeys;
  constexpr int kDimSteps = kHeadDim / 16;  // k steps of S = Q K^T
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
  const int query_tiles = (sequence + kQueries - 1) / kQueries;
  const int first_query = (shape.causal ? query_tiles - 1 - blockIdx.x : blockIdx.x) * kQueries;
  const std::size_t head_offset = static_cast<std::size_t>(blockIdx.y) * sequence * kHeadDim;
  const __nv_bfloat16 *q = args.q + head_offset, *k = args.k + head_offset,
                      *v = args.v + head_offset;
  const int warpgroup = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const auto q_layout = [](int row, int chunk) { return panel_chunk_offset(row, chunk, kQueries); };
  const auto kv_layout = [](int row, int chunk) { return panel_chunk_offset(row, chunk, kKeys); };
  const int all_key_tiles = (sequence + kKeys - 1) / kKeys;
  const int key_tiles =
      shape.causal ? min(all_key_tiles, (first_query + kQueries - 1) / kKeys + 1) : all_key_tiles;

  load_rows<kHeadDim, WgmmaTile::kThreads>(q_tile, q, first_query, kQueries, sequence, q_layout);
  cudalabs::async_copy_commit();
  load_rows<kHeadDim, WgmmaTile::kThreads>(k_tiles, k, 0, kKeys, sequence, kv_layout);
  load_rows<kHeadDim, WgmmaTile::kThreads>(v_tiles, v, 0, kKeys, sequence, kv_layout);
  cudalabs::async_copy_commit();

  float o_flat[kHeadDim / 2] = {};
  float(&o)[kOutBlocks][4] = *reinterpret_cast<float(*)[kOutBlocks][4]>(&o_flat);
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  const int first_row = first_query + 64 * warpgroup + 16 * warp + lane / 4;
  const int rows[2] = {first_row, first_row + 8};
  const float scale_log2 = args.scale * kAttentionLog2e;
  // This warpgroup's 64 rows of Q in every panel (a panel: kQueries rows of 128 bytes).
  const std::uint32_t q_rows = tc::shared_address(q_tile) + 64 * warpgroup * 128;

  for (int t = 0; t < key_tiles; ++t) {
    if (t + 1 < key_tiles) {
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

    // S = Q K^T, both K-major: per 16 of head_dim the descriptors move 32 bytes along the rows,
    // and to the next panel every 64.
    float s_flat[kKeys / 2] = {};
    tc::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kDimSteps; ++ks) {
      const std::uint64_t a =
          tc::wgmma_descriptor(q_rows + (ks / 4) * kQueries * 128 + (ks % 4) * 32, 16, 1024);
      const std::uint64_t b =
          tc::wgmma_descriptor(k_panels + (ks / 4) * kKeys * 128 + (ks % 4) * 32, 16, 1024);
      ptx::wgmma_bf16_ss<kKeys>(s_flat, a, b, ks > 0 ? 1 : 0);
    }
    tc::wgmma_commit();
    tc::wgmma_wait<0>();
    tc::wgmma_hold(s_flat);
    float(&s)[kScoreBlocks][4] = *reinterpret_cast<float(*)[kScoreBlocks][4]>(&s_flat);

    const int first_key = t * kKeys;
    const bool edge =
        first_key + kKeys > sequence || (shape.causal && first_key + kKeys - 1 > first_query);
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
  store_output(o, row_sum, rows, args.o + head_offset, kHeadDim, sequence);
#endif
}
// [flash_wgmma]

}  // namespace
}  // namespace lab13
