// Lab 13: softmax and attention. YOUR KERNELS GO HERE, one rung per step; each is a variant of its
// own (`--variant softmax_online`, ...), checked against the CPU reference and timed. Given, in
// this folder: launch.cuh validates the arguments, picks the grids and the shared memory, and skips
// a rung the GPU cannot run; tiles.h gives the fused kernels' tiles, their shared-memory layouts
// and the work of each block (FlashBlock); reductions.cuh a warp's and a block's maximum and sum;
// attention_naive.cuh step 4, to read; mma_tiles.cuh the tensor-core plumbing lab 11 taught (tile
// copies with cp.async, a warp's Q fragments, S = Q K^T for one tile, O += P V for 16 keys, the
// output stores); wgmma_attention.cuh the challenge's two warpgroup MMAs. Every kernel must be
// right for any rows, columns and sequence length >= 1.
//
// The core: steps 1 to 3 (the row softmax) and step 5 (FlashAttention on mma.sync); step 4 is
// given. The optional challenge, step 6, is at the end of the file.
//
// ---- The row softmax (FP32; an entry may be -infinity, a masked score whose output is 0) ----
// Subtract the row's maximum before exponentiating (exp(x) overflows FP32 from x = 88.7 on). Write
// exp(x - m) as exp2f((x - m) * kLog2e): one multiply and the SFU's ex2. Careful: (-inf) - (-inf)
// is NaN; a value of -infinity adds nothing to the sum.
// Step 1, `softmax_naive_kernel`: write `exp_below` (exp(x - m) as above). Thread r
//  (blockIdx.x * blockDim.x + threadIdx.x < rows) owns row r: one loop for its maximum m, one for
//  sum = sum of exp(x - m), one writing exp(x - m) / sum.
//  Predict: how many 32-byte sectors does one load instruction of a warp touch?
// Step 2, `softmax_online_kernel`: warp w of the block owns row blockIdx.x * 8 + w; lane l reads
//  columns l, l + 32, ... Write two helpers, then the kernel from them:
//  - `online_pass`: the running maximum m and d = sum of exp(x - m) over columns first,
//    first + stride, ... of a row, both updated per element: a new maximum x rescales d to
//    d * exp(m - x) + 1 (d stays 0 while m is -infinity); a smaller finite x adds exp(x - m).
//  - `write_pass`: y[c] = exp(x[c] - m) * inverse over the same columns.
//  The kernel: online_pass with (lane, 32); then the lanes' pairs (m, d) meet as the row's
//  maximum M = warp_max(m) and its sum warp_sum(d * exp(m - M)) (reductions.cuh; a lane that saw
//  only -infinity adds 0); then write_pass with M and 1 / sum.
//  attention_naive (step 4) runs this kernel on its scores, in place (output == input).
// Step 3, `softmax_fused_kernel<kItems>`: one block of 256 per row. kItems > 0: thread t keeps the
//  values of columns t, t + 256, ..., t + 256 (kItems - 1) in a register array (-infinity past the
//  row), reads them once; the row's maximum is block_max of the threads' maxima, its sum block_sum
//  of theirs (reductions.cuh, with a scratch of kSoftmaxThreads / 32 floats of shared memory);
//  then it writes them. kItems == 0 (rows longer than 4096): step 2's online_pass and write_pass
//  with (threadIdx.x, 256), the threads' pairs meeting as the lanes' do in step 2, through
//  block_max and block_sum.
//  Predict: the bytes each of steps 1 to 3 moves per row, against a copy's.
//
// ---- Attention (BF16 Q, K, V, O; (batch, heads, sequence, head_dim); FP32 arithmetic) ----
// Head h (of batch * heads) has its Q, K, V and O at h * sequence * head_dim; each kernel's grid
// names the head in one of its dimensions. Under the causal mask query i sees keys 0 .. i.
// Step 4, attention_naive (given: attention_naive.cuh): read it. The scores to memory, your step 2
//  on them, then P V: the definition your fused kernel must meet, and the rung it is timed against.
//  It reads "not implemented yet" until your step 2 runs.
//  Predict: the bytes per head steps 4 and 5 read and write, at sequence 4096.
// Step 5, `flash_mma_kernel<kHeadDim>` (MmaTile: 4 warps, 64 queries, K and V tiles of 64 keys, two
// stages; compute capability 8.0). A warp owns 16 queries; its scores and its outputs are m16n8
// accumulator blocks laid out as mma_tiles.cuh's comment says: a lane holds two rows (lane / 4 and
// 8 below), and the 4 lanes of a quad hold all the columns of those rows. Write three helpers,
// then the kernel (flash_wgmma, the challenge, calls the helpers too):
//  - `scale_and_mask`: every score times scale_log2 (scale * kLog2e: the exponentials are exp2);
//    when `edge`, -INFINITY for keys past the sequence and, under the causal mask, keys after the
//    element's query (rows[e / 2]). Element e of block j is key first_key + 8 j + 2 (lane % 4) +
//    e % 2.
//  - `online_softmax`: for each of the thread's two rows, the tile's maximum (over the thread's
//    scores of the row, then over the quad: __shfl_xor_sync 1 and 2) and the new running maximum;
//    the row's sum and its output accumulators rescaled by exp2(old maximum - new maximum); each
//    score replaced by exp2(score - new maximum) and added to the sum (each lane keeps its own part
//    of the sum). A row whose keys are all masked so far has maximum -infinity: subtract 0 then,
//    not -infinity ((-inf) - (-inf) is NaN).
//  - `store_output`: each row's sum added over the quad (__shfl_xor_sync 1 and 2: every lane takes
//    part, so before any branch), then, for each of the two rows inside the sequence, store_row
//    (given) with 1 / sum.
//  The kernel:
//  1. FlashBlock<MmaTile, kHeadDim> (given) names the block's first query, its head's offset
//     (into Q, K, V and O alike) and how many key tiles it visits.
//  2. load_mma_query_tile, commit; load_mma_key_tile of key tile 0 into stage 0, commit; wait for Q
//     (async_copy_wait<1>), barrier; load_query_fragments: the warp's Q stays in registers for
//     the whole loop. Start the output accumulators (float o[kHeadDim / 8][4]) at 0, the running
//     maxima at -infinity, the sums at 0; rows[r] is the query of the lane's row r.
//  3. Per key tile t: start the copy of tile t + 1 into the other stage, commit (an empty group on
//     the last tile keeps the count right), wait for tile t, barrier. warp_scores gives S from
//     stage t % 2's K tile (MmaTile::k_tile); scale_and_mask (edge: the tile reaches past the
//     sequence, or under the causal mask past the block's first query), online_softmax; then
//     O += P V per 16 keys kk: the probabilities of blocks 2 kk and 2 kk + 1, packed two to a
//     register with pack_bf16 ({2 kk: elements 0, 1}, {2 kk: 2, 3}, {2 kk + 1: 0, 1},
//     {2 kk + 1: 2, 3}), are warp_add_pv's A fragment as they lie. A barrier before the stage is
//     refilled.
//  4. store_output into the head's O.
//  Predict: how many times is each K tile read from global memory for one head?
#include "attention_naive.cuh"
#include "common/async_copy.cuh"
#include "lab.h"
#include "labs/11_tensor_cores/tensor_core_ptx.cuh"
#include "mma_tiles.cuh"
#include "reductions.cuh"
#include "tiles.h"
#include "wgmma_attention.cuh"

#include <cuda_bf16.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace lab13 {

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;    // every lane of a warp, for __shfl_xor_sync
inline constexpr float kLog2e = 1.4426950408889634f;  // exp(x) = exp2(x log2(e))

// ---- Steps 1 and 2: the softmax's helpers ----

__device__ __forceinline__ float exp_below(float x, float m) {
  return exp2f((x - m) * kLog2e);
}

__device__ __forceinline__ void online_pass(const float* x, int columns, int first, int stride,
                                            float& m, float& d) {
  for (int c = first; c < columns; c += stride) {
    const float value = x[c];
    if (value > m) {
      d = d * exp_below(m, value) + 1.0f;  // m = -infinity: d is 0 and exp_below gives 0
      m = value;
    } else if (value > -INFINITY) {  // value <= m, so m is finite here
      d += exp_below(value, m);
    }
  }
}

__device__ __forceinline__ void write_pass(const float* x, float* y, int columns, int first,
                                           int stride, float m, float inverse) {
  for (int c = first; c < columns; c += stride) y[c] = exp_below(x[c], m) * inverse;
}

// ---- Step 5: the online softmax on a warp's accumulators ----

template <int kScoreBlocks>
__device__ __forceinline__ void scale_and_mask(float (&s)[kScoreBlocks][4], float scale_log2,
                                               bool edge, int first_key, const int (&rows)[2],
                                               const AttentionShape& shape) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int j = 0; j < kScoreBlocks; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      s[j][e] *= scale_log2;
      if (edge) {
        const int key = first_key + 8 * j + 2 * (lane % 4) + e % 2;
        if (key >= shape.sequence || (shape.causal && key > rows[e / 2])) s[j][e] = -INFINITY;
      }
    }
  }
}

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
    const float base = new_max == -INFINITY ? 0.0f : new_max;  // all masked so far: subtract 0
    const float rescale = exp2f(row_max[r] - base);            // first tile: exp2(-inf) = 0
    row_max[r] = new_max;
    row_sum[r] *= rescale;
#pragma unroll
    for (int j = 0; j < kOutBlocks; ++j) {
      o[j][2 * r] *= rescale;
      o[j][2 * r + 1] *= rescale;
    }
#pragma unroll
    for (int j = 0; j < kScoreBlocks; ++j) {
      s[j][2 * r] = exp2f(s[j][2 * r] - base);
      s[j][2 * r + 1] = exp2f(s[j][2 * r + 1] - base);
      row_sum[r] += s[j][2 * r] + s[j][2 * r + 1];
    }
  }
}

template <int kOutBlocks>
__device__ __forceinline__ void store_output(const float (&o)[kOutBlocks][4],
                                             const float (&row_sum)[2], const int (&rows)[2],
                                             __nv_bfloat16* out, int head_dim, int sequence) {
  float sum[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    sum[r] = row_sum[r];
    sum[r] += __shfl_xor_sync(kFullMask, sum[r], 1);
    sum[r] += __shfl_xor_sync(kFullMask, sum[r], 2);
  }
#pragma unroll
  for (int r = 0; r < 2; ++r)
    if (rows[r] < sequence) store_row(o, r, 1.0f / sum[r], rows[r], out, head_dim);
}

namespace {

// ---- The kernels (the anonymous namespace: launch.cuh launches them) ----

__global__ void __launch_bounds__(kSoftmaxThreads) softmax_naive_kernel(SoftmaxArgs args) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= args.rows) return;
  const std::size_t offset = static_cast<std::size_t>(row) * args.columns;
  const float* x = args.input + offset;
  float* y = args.output + offset;
  float m = -INFINITY;
  for (int c = 0; c < args.columns; ++c) m = fmaxf(m, x[c]);
  float sum = 0.0f;
  for (int c = 0; c < args.columns; ++c) sum += exp_below(x[c], m);
  const float inverse = 1.0f / sum;
  for (int c = 0; c < args.columns; ++c) y[c] = exp_below(x[c], m) * inverse;
}

__global__ void __launch_bounds__(kSoftmaxThreads) softmax_online_kernel(SoftmaxArgs args) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * (kSoftmaxThreads / 32) + warp;
  if (row >= args.rows) return;  // the whole warp leaves together
  const std::size_t offset = static_cast<std::size_t>(row) * args.columns;
  const float* x = args.input + offset;
  float* y = args.output + offset;
  float m = -INFINITY, d = 0.0f;
  online_pass(x, args.columns, lane, 32, m, d);
  const float row_max = warp_max(m);
  const float sum = warp_sum(d * exp_below(m, row_max));  // d = 0 where m = -infinity
  write_pass(x, y, args.columns, lane, 32, row_max, 1.0f / sum);
}

template <int kItems>
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_fused_kernel(SoftmaxArgs args) {
  __shared__ float scratch[kSoftmaxThreads / 32];
  const std::size_t offset = static_cast<std::size_t>(blockIdx.x) * args.columns;
  const float* x = args.input + offset;
  float* y = args.output + offset;
  const int t = threadIdx.x;
  if constexpr (kItems > 0) {
    float values[kItems];
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int c = t + i * kSoftmaxThreads;
      values[i] = c < args.columns ? x[c] : -INFINITY;
      m = fmaxf(m, values[i]);
    }
    const float row_max = block_max(m, scratch);
    float d = 0.0f;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      values[i] = exp_below(values[i], row_max);
      d += values[i];
    }
    const float inverse = 1.0f / block_sum(d, scratch);
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int c = t + i * kSoftmaxThreads;
      if (c < args.columns) y[c] = values[i] * inverse;
    }
  } else {
    float m = -INFINITY, d = 0.0f;
    online_pass(x, args.columns, t, kSoftmaxThreads, m, d);
    const float row_max = block_max(m, scratch);
    const float sum = block_sum(d * exp_below(m, row_max), scratch);
    write_pass(x, y, args.columns, t, kSoftmaxThreads, row_max, 1.0f / sum);
  }
}

template <int kHeadDim>
__global__ void __launch_bounds__(MmaTile::kThreads) flash_mma_kernel(AttentionArgs args) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__(16) unsigned char flash_shared[];
  const AttentionShape& shape = args.shape;
  const FlashBlock<MmaTile, kHeadDim> work(shape);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const __nv_bfloat16* q = args.q + work.head_offset;
  const __nv_bfloat16* k = args.k + work.head_offset;
  const __nv_bfloat16* v = args.v + work.head_offset;

  load_mma_query_tile<kHeadDim>(flash_shared, q, work.first_query, shape.sequence);
  cudalabs::async_copy_commit();
  load_mma_key_tile<kHeadDim>(flash_shared, 0, 0, k, v, shape.sequence);
  cudalabs::async_copy_commit();
  cudalabs::async_copy_wait<1>();  // Q has arrived; key tile 0 may still be in flight
  __syncthreads();
  std::uint32_t q_frag[kHeadDim / 16][4];
  load_query_fragments<kHeadDim>(q_frag, flash_shared, warp, lane);

  float o[kHeadDim / 8][4];
#pragma unroll
  for (int j = 0; j < kHeadDim / 8; ++j) o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.0f;
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.0f, 0.0f};
  const int rows[2] = {work.first_query + 16 * warp + lane / 4,
                       work.first_query + 16 * warp + lane / 4 + 8};
  const float scale_log2 = args.scale * kLog2e;

  for (int t = 0; t < work.key_tiles; ++t) {
    if (t + 1 < work.key_tiles)
      load_mma_key_tile<kHeadDim>(flash_shared, (t + 1) % 2, t + 1, k, v, shape.sequence);
    cudalabs::async_copy_commit();   // empty on the last tile: the count stays right
    cudalabs::async_copy_wait<1>();  // tile t has arrived
    __syncthreads();

    float s[MmaTile::kKeys / 8][4];
    warp_scores<kHeadDim>(s, q_frag, MmaTile::k_tile(flash_shared, kHeadDim, t % 2), lane);
    const int first_key = t * MmaTile::kKeys;
    const int last_key = first_key + MmaTile::kKeys - 1;
    const bool edge = last_key >= shape.sequence || (shape.causal && last_key > work.first_query);
    scale_and_mask(s, scale_log2, edge, first_key, rows, shape);
    online_softmax(s, o, row_max, row_sum);

    const unsigned char* v_tile = MmaTile::v_tile(flash_shared, kHeadDim, t % 2);
#pragma unroll
    for (int kk = 0; kk < MmaTile::kKeys / 16; ++kk) {
      const std::uint32_t p[4] = {pack_bf16(s[2 * kk][0], s[2 * kk][1]),
                                  pack_bf16(s[2 * kk][2], s[2 * kk][3]),
                                  pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                  pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
      warp_add_pv<kHeadDim>(o, p, v_tile, kk, lane);
    }
    __syncthreads();  // every warp is done with this stage before it is refilled
  }

  store_output(o, row_sum, rows, args.o + work.head_offset, kHeadDim, shape.sequence);
#endif
  (void)args;
}

// ---- The optional challenge: flash_wgmma, FlashAttention on Hopper's wgmma ----
// Step 6, `flash_wgmma_kernel<kHeadDim>` (WgmmaTile: two warpgroups of 64 queries, K and V tiles of
// 64 keys, two stages; sm_90a, "needs compute capability 9.0" elsewhere): step 5 with wgmma. Warp
// w of a warpgroup holds rows 16 w .. 16 w + 15 of its 64 in step 5's m16n8 layout
// (wgmma_attention.cuh's comment), so your scale_and_mask, online_softmax and store_output serve as
// they are, on float (&)[kBlocks][4] views of wgmma's flat accumulator arrays.
//  1. FlashBlock<WgmmaTile, kHeadDim> as in step 5. Round the dynamic shared memory's start up to
//     WgmmaTile::kAlignment (1024 bytes: the swizzle repeats every 8 rows of 128 bytes), then the
//     Q tile, the K stages, the V stages (WgmmaTile::q_bytes, kv_bytes). Copy with load_rows, Q
//     with PanelRows<kQueries>, K and V with PanelRows<kKeys> (64-column panels, the 128-byte
//     swizzle). After each wait: tc::fence_proxy_async_shared(), then the barrier: the tensor
//     cores read through the async proxy.
//  2. S: tc::wgmma_fence, then per 16 of head_dim one ptx::wgmma_bf16_ss<64> (the first
//     overwrites), both descriptors (tc::wgmma_descriptor) moving 32 bytes along the rows per
//     step, a panel per 64: Q at its panel + 64 warpgroup * 128 bytes (the warpgroup's rows), K at
//     its panel; leading byte offset 16, stride 1024. Commit, wait, tc::wgmma_hold.
//  3. O: the probabilities packed as in step 5 are the A registers of ptx::wgmma_bf16_rs<kHeadDim>
//     (one per 16 keys); V's descriptor starts 16 rows (2048 bytes) down per step, its panels
//     64 * 128 bytes apart (the leading byte offset), stride 1024. tc::wgmma_fence first (the
//     softmax rescaled the accumulators), then commit, wait, hold, and a barrier before the stage
//     is refilled.
//  Predict: what does the warpgroup MMA save over step 5 per tile?

template <int kHeadDim>
__global__ void __launch_bounds__(WgmmaTile::kThreads) flash_wgmma_kernel(AttentionArgs args) {
  // TODO(lab13): step 6, the same on Hopper's wgmma.
  (void)args;
}

}  // namespace
}  // namespace lab13

#include "launch.cuh"
