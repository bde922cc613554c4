// Lab 13: softmax and attention. YOUR KERNELS GO HERE, one rung per step; each is a variant of its
// own (`--variant softmax_online`, ...), checked against the CPU reference and timed. launch.cuh
// (given) validates the arguments, picks the grids and the shared memory, and skips a rung the GPU
// cannot run; tiles.h gives the fused kernels' tiles and shared-memory layouts;
// labs/11_tensor_cores/tensor_core_ptx.cuh lab 11's wrappers of ldmatrix, mma.sync, the wgmma
// descriptors and fences (lab11::ptx::...), and wgmma_attention.cuh the two warpgroup MMAs of step
// 6 (lab13::ptx::...). Every kernel must be right for any rows, columns and sequence length >= 1.
//
// ---- The row softmax (FP32; an entry may be -infinity, a masked score whose output is 0) ----
// Subtract the row's maximum before exponentiating (exp(x) overflows FP32 from x = 88.7 on). Write
// exp(x - m) as exp2f((x - m) * log2(e)): one multiply and the SFU's ex2. Careful: (-inf) - (-inf)
// is NaN; a value of -infinity adds nothing to the sum.
// Step 1, `softmax_naive_kernel`: thread r (blockIdx.x * blockDim.x + threadIdx.x < rows) owns row
//  r: one loop for its maximum m, one for sum = sum of exp(x - m), one writing exp(x - m) / sum.
//  Predict: how many 32-byte sectors does one load instruction of a warp touch?
// Step 2, `softmax_online_kernel`: warp w of the block owns row blockIdx.x * 8 + w; lane l reads
//  columns l, l + 32, ... Keep the running maximum m and d = sum of exp(x - m) together: a new
//  maximum x rescales d to d * exp(m - x) + 1. Combine the lanes' (m, d) pairs with
//  __shfl_xor_sync (offsets 16 .. 1) the same way, then a second loop writes exp(x - m) / d.
//  attention_naive (step 4) runs this kernel on its scores, in place (output == input).
// Step 3, `softmax_fused_kernel<kItems>`: one block of 256 per row. kItems > 0: thread t keeps the
//  values of columns t, t + 256, ..., t + 256 (kItems - 1) in a register array (-infinity past the
//  row), reads them once; the block's maximum and sum go through warp shuffles and shared memory
//  (the two barriers in between); then it writes them. kItems == 0 (rows longer than 4096): step
//  2's two passes with the whole block, the warps' (m, d) pairs combined through shared memory.
//  Predict: the bytes each of steps 1 to 3 moves per row, against a copy's.
//
// ---- Attention (BF16 Q, K, V, O; (batch, heads, sequence, head_dim); FP32 arithmetic) ----
// Head h (of batch * heads) has its Q, K, V and O at h * sequence * head_dim; each kernel's grid
// names the head in one of its dimensions. Under the causal mask query i sees keys 0 .. i.
// Step 4, `attention_scores_kernel` and `attention_values_kernel` (attention_naive):
//  1. scores: thread (x, y) of a 16 x 16 block is key blockIdx.x * 16 + x and query
//     blockIdx.y * 16 + y of head blockIdx.z: S = scale * sum over c of q[c] k[c] (both converted
//     with __bfloat162float), -INFINITY where the mask hides the key, into
//     scores[(head * sequence + query) * sequence + key]. (launch.cuh then runs step 2 on them.)
//  2. values: thread c of block (query = blockIdx.x, head = blockIdx.y) writes O[query][c] = sum
//     over keys j of P[query][j] V[j][c], as __float2bfloat16.
// Step 5, `flash_mma_kernel<kHeadDim>` (MmaTile: 4 warps, 64 queries, K and V tiles of 64 keys, two
// stages; compute capability 8.0):
//  3. The query tile is blockIdx.x (with the causal mask: the last tiles first, gridDim.x - 1 -
//     blockIdx.x), the head blockIdx.y. Copy rows of Q, K, V into shared memory in 16-byte chunks
//     with cudalabs::async_copy_16_zero_fill (common/async_copy.cuh; 0 bytes read past the
//     sequence), chunk c of row r at swizzled_chunk_offset(r, c, kHeadDim / 8). Commit Q, then the
//     first K and V tile; wait for Q.
//  4. Each warp keeps its 16 queries as A fragments for the whole loop: per 16 of head_dim one
//     ldmatrix_x4 (lane l gives row 16 warp + l % 16, chunk 2 ks + l / 16).
//  5. Per key tile t (the causal mask stops at the query tile's last key): start the copy of tile
//     t + 1 into the other stage, commit, wait for tile t, barrier. S = Q K^T for 16 x 64: per 16
//     of head_dim and per 16 keys, ldmatrix_x4 of K (lane l gives key 16 pair + (l / 16) 8 + l % 8,
//     chunk 2 ks + (l / 8) % 2) gives the B fragments of two 8-key blocks: two mma_m16n8k16_bf16.
//  6. Scale by scale * log2(e), mask (keys past the sequence, keys after the query), and update
//     the online softmax of each of the thread's two rows (lane / 4 and 8 below; a row's 4 lanes
//     share max and sum through __shfl_xor_sync 1 and 2): the new maximum, the old sum and the
//     output accumulators rescaled by exp2(old - new), the scores replaced by exp2(s - max) and
//     added to the sum.
//  7. O += P V: the probabilities of 16 keys, packed two BF16 to a register, are the A fragment
//     as they lie (blocks 2 kk and 2 kk + 1 of the scores); ldmatrix_x4<true> of V (lane l gives
//     key 16 kk + ((l / 8) % 2) 8 + l % 8, chunk 2 pair + l / 16) the B fragments of two 8-column
//     blocks of the output. A barrier before the stage is refilled.
//  8. Divide each row by its sum (added over the quad) and store the rows inside the sequence as
//     __nv_bfloat162 pairs.
//  Predict: the bytes per head each of steps 4 and 5 reads and writes, at sequence 4096.
// Step 6, `flash_wgmma_kernel<kHeadDim>` (WgmmaTile: two warpgroups of 64 queries, K and V tiles of
// 64 keys; sm_90a, "needs compute capability 9.0" elsewhere): step 5 with wgmma.
//  9. Store every tile as panel_chunk_offset says (64-column panels, the 128-byte swizzle, the
//     shared memory aligned to 1024 bytes). After each wait:
//     lab11::ptx::fence_proxy_async_shared(), then the barrier: the tensor cores read through the
//     async proxy.
// 10. S: wgmma_fence, then per 16 of head_dim one lab13::ptx::wgmma_bf16_ss<64>, both descriptors
//     (lab11::ptx::wgmma_descriptor) moving 32 bytes along the rows per step, a panel per 64: Q at
//     its panel + 64 warpgroup * 128 bytes, K at its panel; leading byte offset 16, stride 1024.
//     Commit, wait, wgmma_hold. The accumulators are laid out as step 5's (8-column blocks).
// 11. O: the probabilities packed as in step 7 are the A registers of lab13::ptx::wgmma_bf16_rs<D>
//     (one per 16 keys); V's descriptor starts 16 rows (2048 bytes) down per step, its panels
//     64 * 128 bytes apart (the leading byte offset), stride 1024. wgmma_fence first (the softmax
//     rescaled the accumulators), then commit, wait, hold, barrier.
//  Predict: what does the warpgroup MMA save over step 5 per tile?
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

__global__ void __launch_bounds__(kSoftmaxThreads) softmax_naive_kernel(SoftmaxArgs args) {
  // TODO(lab13): step 1, one thread per row, three passes.
  (void)args;
}

__global__ void __launch_bounds__(kSoftmaxThreads) softmax_online_kernel(SoftmaxArgs args) {
  // TODO(lab13): step 2, one warp per row, the online maximum and sum.
  (void)args;
}

template <int kItems>
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_fused_kernel(SoftmaxArgs args) {
  // TODO(lab13): step 3, one block per row held in registers (kItems == 0: two passes).
  (void)args;
}

__global__ void attention_scores_kernel(AttentionArgs args, float* scores) {
  // TODO(lab13): step 4.1, one thread per score.
  (void)args;
  (void)scores;
}

__global__ void attention_values_kernel(AttentionArgs args, const float* probabilities) {
  // TODO(lab13): step 4.2, one thread per output.
  (void)args;
  (void)probabilities;
}

template <int kHeadDim>
__global__ void __launch_bounds__(MmaTile::kThreads) flash_mma_kernel(AttentionArgs args) {
  // TODO(lab13): step 5, FlashAttention on mma.sync.
  (void)args;
}

template <int kHeadDim>
__global__ void __launch_bounds__(WgmmaTile::kThreads) flash_wgmma_kernel(AttentionArgs args) {
  // TODO(lab13): step 6, the same on Hopper's wgmma.
  (void)args;
}

}  // namespace
}  // namespace lab13

#include "launch.cuh"
