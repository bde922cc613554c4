// Lab 11: the GEMM on tensor cores. YOUR KERNELS GO HERE, one rung of the ladder per step; each is
// a variant of its own (`--variant wmma_global`, ...), tested and timed alone against cuBLAS in
// BF16 (the FP16 rungs: in FP16). A and B are BF16 (__nv_bfloat16; __half in the FP16 rungs), C
// and every sum are FP32. tiles.h gives each step's tile shape, tensor_core_ptx.cuh one wrapper per
// PTX instruction you need, staging.cuh the helpers every rung shares (16-byte chunk copies, the
// multistage cp.async loop, the stores of accumulator pairs), launch.cuh the grids, the
// shared-memory sizes and the tensor maps. Every kernel must be right for any M, N, K >= 1 and any
// leading dimensions: kAligned = false means A or B may not be read 16 bytes at a time.
//
// The core: steps 1, 3 and 4 (step 2 is given, to read), and the FP16 rungs 1h and 3h.
//
// Step 1, `wmma_global_kernel<kAligned>` (WmmaGlobalTile: 4 warps, 32 x 32 of C each):
//  1. Each warp keeps 2 x 2 wmma accumulator fragments (16 x 16 x 16, float) and, for every 16 of
//     K, loads 2 A and 2 B fragments (bf16, row_major) with wmma::load_matrix_sync straight from
//     global memory, then 4 mma_sync. The API needs 32-byte aligned fragment starts and ld a
//     multiple of 8: when kAligned is false, or the warp's fragments would cross an edge of A, B
//     or K, copy the 32 x 16 piece of A and the 16 x 32 piece of B into a per-warp shared buffer
//     first (zeros outside) and load the fragments from there.
//  2. Write each accumulator with store_fragment (wmma_pipelined.cuh, given), through a per-warp
//     16 x 16 float buffer in shared memory.
//  Predict: how many times is each element of A read from global memory? (make profile N=11)
//
// Step 2, `wmma_pipelined` (given: wmma_pipelined.cuh): lab 07's shared tiles, now as BF16 rows
// padded by 8 elements, fed by cp.async three stages deep (staging.cuh's stage_chunk and
// cp_async_pipeline). Read it: step 3 keeps its stages, its copies and its pipeline.
//  Predict: the bank conflicts of load_matrix_sync with rows of 32 BF16 unpadded, and padded.
//
// Step 3, `mma_swizzled_kernel<kAligned>` (MmaTile: 128 x 128 x 64, 4 warps of 64 x 64, 3 stages):
//  3. Lay each stage out as SwizzledTile says: 128-byte rows whose 16-byte chunk c sits at
//     position c ^ (row % 8). A: BM rows of 64 k. B: 64-column panels of 64 k-rows, 8 KiB apart.
//     Copy each chunk with stage_chunk, and run the stages with cp_async_pipeline.
//  4. Per 16 of K: ptx::ldmatrix_x4 for each of the warp's 4 A pieces (lane l gives row l % 16,
//     chunk l / 16), ptx::ldmatrix_x4<true> for its 4 pairs of 8-column B pieces (lane l gives
//     k-row l % 16, the pair's chunk + l / 16), then 32 ptx::mma_m16n8k16_bf16.
//  5. Write C from the accumulators as tensor_core_ptx.cuh lays them out (two columns a lane:
//     store_pair).
//  Predict: shared-memory wavefronts per ldmatrix, with and without the swizzle.
//
// Steps 1 to 3 need BF16 tensor cores (compute capability 8.0). A GPU of compute capability 7.5
// (T4, RTX 20) has FP16 ones: the FP16 rungs below are steps 1 and 3 for it (every GPU runs them),
// and the driver times them against cuBLAS in FP16.
//
// Step 1h, `wmma_fp16_kernel<kAligned>` (WmmaGlobalTile; cudalabs::Fp16GemmArgs, A and B __half):
//  step 1 with wmma fragments of __half instead of __nv_bfloat16; nothing else changes (a
//  template on the element type can serve both).
//
// Step 3h, `mma_fp16_kernel<kAligned>` (MmaFp16Tile: 128 x 64 x 64, 4 warps of 64 x 32, 2 stages,
// 49 KiB: 7.5 has 64 KiB of shared memory per SM): step 3 with FP16, ptx::mma_m16n8k16_fp16
// instead of ..._bf16 (on 7.5 it issues two m16n8k8 from the same registers; staging.cuh's
// mma_16x8x16 picks the instruction from the element type). A warp holds 4 x 4 m16n8 tiles: 4
// ldmatrix_x4 for A and 2 ldmatrix_x4<true> for B per 16 of K. The copies take
// common/async_copy.cuh as in step 2: plain loads and stores on 7.5, which has no cp.async.
//  Predict: with 2 stages and synchronous copies on 7.5, what does the second stage still buy?
//
// Step 4 needs a Hopper GPU (sm_90a), as do the challenge's steps; they report "needs compute
// capability 9.0" elsewhere.
//
// Step 4, `wgmma_kernel<kAligned>` (WgmmaTile: one warpgroup, 64 x 128 x 64, 4 stages): step 3's
//  stages and loads, and instead of ldmatrix and mma.sync, per 16 of K one ptx::wgmma_bf16<128>
//  whose operands stay in shared memory, read through 64-bit matrix descriptors
//  (ptx::wgmma_descriptor). The PTX ISA defines them in "Asynchronous Warpgroup Level Matrix
//  Shared Memory Layout", under "Matrix Descriptor": a start address, a leading dimension byte
//  offset and a stride dimension byte offset (each in 16-byte units), a base offset and the
//  swizzle mode (128-byte here). Work the numbers out from SwizzledTile and that section:
//  6. The ISA reads an operand in core matrices of 8 rows of 16 bytes. A is K-major (a row of A
//     holds the stage's 64 k: one 128-byte row). Its stride byte offset is the distance between
//     consecutive groups of 8 rows along M: how many bytes do 8 of your rows take? Its leading
//     byte offset: what does the section say a K-major operand in a swizzled layout uses it for
//     (any value in range will do where it is unused; pass one unit)?
//  7. B is N-major (row-major B: the instruction's transpose flag, 1 for BF16, accepts it): your
//     64-column panels. Its stride byte offset is the distance between consecutive groups of 8
//     k-rows; its leading byte offset the distance from one 64-column panel to the next (a
//     128-byte swizzle atom of 16-bit values is 64 columns wide).
//  8. Per 16 of K the start addresses move: A's 16 elements along its rows (bytes?), B's 16
//     k-rows down its panels (bytes?). The hardware applies the swizzle to the address it
//     computes, so the starts you pass are unswizzled; a stage that starts on a 1024-byte
//     boundary (where the pattern repeats) leaves the base offset 0.
//  9. Before the first wgmma of a stage: every thread's ptx::fence_proxy_async_shared() (its
//     writes, before the tensor cores read: cp_async_pipeline<kStages, true> does it), the
//     barrier, ptx::wgmma_fence(). After: commit, wait, and only then let the stage be
//     overwritten. Store the warpgroup's m64n128 accumulators with store_warpgroup_tile.
//  Predict: what does a wgmma save, against step 3, in instructions issued per 16 of K?
//
// Optional challenge (its own tests and points; Hopper only): the copy engine and warp
// specialisation, the kernels `best` runs on Hopper (elsewhere best runs your step 3), and the
// DCGAN on them.
//
// Step 5, `tma_wgmma_kernel` (TmaTile: 128 x 128 x 64, 4 stages): the tensor maps (launch.cuh)
//  describe A in 128 x 64 boxes and B in 64 x 64 boxes. 10. One thread initialises a "full"
//  mbarrier per stage and starts the first stages: ptx::mbarrier_arrive_expect_bytes with the
//  stage's bytes, then ptx::tma_load_2d for A's box and B's two panels. Everyone waits on the
//  stage's barrier (parity = how many times the stage was used, mod 2), multiplies both 64-row
//  halves, waits for the wgmma, barriers, and the thread refills the stage.
//
// Step 6, `warp_specialized_kernel<kWidth>` (SpecializedTile: 3 warpgroups, 128 x kWidth x 64,
// persistent; kWidth 256 for `warp_specialized`, 128 for `warp_specialized_128`):
// 11. Warpgroup 0 produces: ptx::set_max_registers<40, false>, then one thread walks this block's
//     tiles (blockIdx.x, + gridDim.x, ...; grouped order: staging.cuh's grouped_tile) and, per
//     stage, waits on its "empty" barrier and issues the TMA loads. Warpgroups 1 and 2 consume:
//     set_max_registers<232, true>, wait on "full", wgmma_bf16<kWidth> on their 64 rows, wait,
//     and each warp arrives on "empty".
//  Predict: the bytes per FLOP a 128 x 256 x 64 stage needs, against the bandwidth lab 00
//  measured.
//
// Step 7, `subpixel_wgmma_kernel<kWidth>` (SubpixelTile; dcgan_layers.h, subpixel_params.h): the
// DCGAN's transposed convolutions on step 6's kernel. A work item is one sub-pixel phase z's tile
// of BM input pixels by kWidth output channels (subpixel_params.h's fields say how many).
// 12. The producer walks k steps kt = tap * (C / 64) + channel block (T = __nv_bfloat16): ptx::
//     tma_load_4d of the activations at (64 * block, input_offset(px, tx), i0 + input_offset(py,
//     ty), n0), where
//     (n0, i0) is the tile's first pixel, and B's panels at row phase_first_row(z) + tap * C +
//     64 * block of the packed filter. TMA writes zeros where a tap leaves the image.
// 13. The consumers multiply as in step 6 (SubpixelTile::kRowBlocks blocks of 64 pixels each);
//     the epilogue stores BF16(max(0, acc * scale[k] + shift[k])) (ReLU only when p.relu) to
//     output pixel (n, 2 i + py, 2 j + px), and nothing for pixels past the batch.
// 14. T = float takes TF32 inputs: a stage holds stage_channels<float>() = 32 channels, B is the
//     transposed filter (K-major: one TMA box of BN rows at (column, col0)), ptx::wgmma_tf32 with
//     a K-major descriptor for B (as A's), and the epilogue stores ptx::round_to_tf32 values.
//  Predict: why does the 64-channel layer take 256-pixel tiles? What would 128 cost?
#include "common/async_copy.cuh"
#include "lab.h"
#include "staging.cuh"
#include "subpixel_params.h"
#include "tensor_core_ptx.cuh"
#include "tiles.h"
#include "wmma_pipelined.cuh"

#include <cuda.h>

namespace lab11 {
namespace {

// ---- The core: steps 1, 3 and 4, and the FP16 rungs (step 2 is given: wmma_pipelined.cuh) ----

template <bool kAligned>
__global__ void __launch_bounds__(WmmaGlobalTile::kThreads)
    wmma_global_kernel(cudalabs::Bf16GemmArgs args) {
  // TODO(lab11): step 1, WMMA fragments straight from global memory.
  (void)args;
}

template <bool kAligned>
__global__ void __launch_bounds__(MmaTile::kThreads)
    mma_swizzled_kernel(cudalabs::Bf16GemmArgs args) {
  // TODO(lab11): step 3, mma.sync and ldmatrix on swizzled tiles.
  (void)args;
}

template <bool kAligned>
__global__ void __launch_bounds__(WmmaGlobalTile::kThreads)
    wmma_fp16_kernel(cudalabs::Fp16GemmArgs args) {
  // TODO(lab11): step 1h, step 1 with FP16 fragments.
  (void)args;
}

template <bool kAligned>
__global__ void __launch_bounds__(MmaFp16Tile::kThreads)
    mma_fp16_kernel(cudalabs::Fp16GemmArgs args) {
  // TODO(lab11): step 3h, step 3 with FP16 inputs on MmaFp16Tile.
  (void)args;
}

template <bool kAligned>
__global__ void __launch_bounds__(WgmmaTile::kThreads) wgmma_kernel(cudalabs::Bf16GemmArgs args) {
  // TODO(lab11): step 4, wgmma from shared-memory descriptors.
  (void)args;
}

// ---- The optional challenge: steps 5 to 7 ----

__global__ void __launch_bounds__(TmaTile::kThreads)
    tma_wgmma_kernel(cudalabs::Bf16GemmArgs args, const __grid_constant__ CUtensorMap a_map,
                     const __grid_constant__ CUtensorMap b_map) {
  // TODO(lab11): step 5, TMA and an mbarrier pipeline feeding wgmma.
  (void)args;
  (void)a_map;
  (void)b_map;
}

template <int kWidth>
__global__ void __launch_bounds__(SpecializedTile<kWidth>::kThreads, 1)
    warp_specialized_kernel(cudalabs::Bf16GemmArgs args, const __grid_constant__ CUtensorMap a_map,
                            const __grid_constant__ CUtensorMap b_map) {
  // TODO(lab11): step 6, producer and consumer warpgroups on a persistent grid.
  (void)args;
  (void)a_map;
  (void)b_map;
}

template <int kWidth, class T>
__global__ void __launch_bounds__(SubpixelTile<kWidth>::kThreads, 1)
    subpixel_wgmma_kernel(SubpixelParams<T> p, const __grid_constant__ CUtensorMap a_map,
                          const __grid_constant__ CUtensorMap b_map) {
  // TODO(lab11): step 7, the DCGAN's sub-pixel phases as implicit GEMMs on tensor cores.
  (void)p;
  (void)a_map;
  (void)b_map;
}

}  // namespace
}  // namespace lab11

#include "launch.cuh"

#include "dcgan_launch.cuh"
