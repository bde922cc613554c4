// Lab 11: the GEMM on tensor cores. YOUR KERNELS GO HERE, one rung of the ladder per step; each is
// a variant of its own (`--variant wmma_global`, ...), tested and timed alone against cuBLAS in
// BF16 (the FP16 rungs: in FP16). A and B are BF16 (__nv_bfloat16; __half in the FP16 rungs), C
// and every sum are FP32. tiles.h gives each step's tile shape, tensor_core_ptx.cuh one wrapper per
// PTX instruction you need, staging.cuh the helpers every rung shares (16-byte chunk copies, the
// multistage cp.async loop, the stores of accumulator pairs and of a warpgroup's tile),
// wmma_pipelined.cuh the WMMA fragment types and store_fragment, launch.cuh the grids, the
// shared-memory sizes and the tensor maps. Every kernel must be right for any M, N, K >= 1 and any
// leading dimensions: kAligned = false means A or B may not be read 16 bytes at a time.
//
// The core's kernels of steps 1, 1h, 3 and 3h are given (core_kernels.cuh): each calls your code
// only where the GPU has its instructions (the #if around the call), so that every rung builds for
// every architecture and reports "needs compute capability ..." elsewhere. What you write are the
// functions they call, below, each from its stub's contract, and later steps call what earlier ones
// wrote (step 4 runs on step 3's stages). Write each body once for any element type T (bf16 or
// fp16) and tile: the FP16 rungs 1h and 3h, for compute capability 7.5 (T4, RTX 20), call the
// bodies of steps 1 and 3 with __half. The challenge's kernels (steps 5-7, at the end) carry the
// same guard; their bodies are yours.
#include "common/async_copy.cuh"
#include "core_kernels.cuh"
#include "lab.h"
#include "staging.cuh"
#include "subpixel_params.h"
#include "tensor_core_ptx.cuh"
#include "tiles.h"
#include "unit_finish.cuh"
#include "wmma_pipelined.cuh"
#include "work_units.h"

#include <cuda.h>

namespace lab11 {
namespace {

// ---- The core: steps 1, 3 and 4 (step 2 is given: wmma_pipelined.cuh), and the FP16 rungs ----

// The core's grids (launch.cuh's tile_grid): blockIdx.x walks N, blockIdx.y walks M.
//
// Step 1, wmma_global_body<T, kAligned> (WmmaGlobalTile: 4 warps, 32 x 32 of C each; no dynamic
// shared memory: its buffers are static __shared__ arrays; a warp wholly outside C may return,
// since step 1 has no block-wide barrier):
//  1. Each warp keeps 2 x 2 wmma accumulator fragments (Accumulator: 16 x 16 x 16, float) and, for
//     every 16 of K, loads 2 A and 2 B fragments (FragmentAOf<T>, FragmentBOf<T>: row_major) with
//     wmma::load_matrix_sync straight from global memory, then 4 wmma::mma_sync. The API needs
//     32-byte aligned fragment starts and ld a multiple of 8: when kAligned is false, or the warp's
//     fragments would cross an edge of A, B or K, copy the warp's 32 x 16 piece of A and 16 x 32
//     piece of B into per-warp __shared__ buffers first (zeros outside: zero_of<T>()), __syncwarp,
//     and load the fragments from there.
//  2. Write each accumulator with store_fragment (wmma_pipelined.cuh), through a per-warp
//     16 x 16 float buffer in shared memory.
//  Predict: how many times is each element of A read from global memory? (make profile N=11)
template <class T, bool kAligned>
__device__ __forceinline__ void wmma_global_body(const cudalabs::GemmArgsOf<T>& args) {
  // TODO(lab11): step 1, WMMA fragments straight from global memory.
  (void)args;
}

// Step 2, `wmma_pipelined` (given: wmma_pipelined.cuh): lab 07's shared tiles, now as BF16 rows
// padded by 8 elements, fed by cp.async three stages deep (staging.cuh's stage_chunk and
// cp_async_pipeline). Read it: step 3 keeps its stages, its copies and its pipeline.
//  Predict: the bank conflicts of load_matrix_sync with rows of 32 BF16 unpadded, and padded.

// Step 3, the swizzled layout: four functions that step 4 reuses as they are.
//  3. A stage holds A's BM x 64 tile as BM rows of 128 bytes (K-major), then B's 64 x BN tile as
//     BN / 64 panels of 64 k-rows by 64 columns (N-major), each panel SwizzledTile::kPanelBytes.
//     In every 128-byte row, 16-byte chunk c sits at position c ^ (row % 8) (the 128-byte
//     swizzle). swizzled_offset(row, chunk) returns the byte offset of that chunk in a region of
//     such rows; b_panel_offset(k, column_chunk) that of B's chunk (k, columns 8 column_chunk ..)
//     in a stage's B part (its panel column_chunk / 8, then swizzled_offset within it).
//  Predict: shared-memory wavefronts per ldmatrix, with and without the swizzle.
[[maybe_unused]] __device__ __forceinline__ int swizzled_offset(int row, int chunk) {
  // TODO(lab11): step 3, the 128-byte swizzle.
  (void)row;
  (void)chunk;
  return 0;
}

[[maybe_unused]] __device__ __forceinline__ int b_panel_offset(int k, int column_chunk) {
  // TODO(lab11): step 3, where a chunk of B lives.
  (void)k;
  (void)column_chunk;
  return 0;
}

//  4. stage_swizzled_tiles starts the copies of A's BM x 64 tile at (row0, k0) and B's 64 x BN
//     tile at (k0, col0) into `stage`, laid out as above: the block's kThreads threads share the
//     16-byte chunks, each copied with stage_chunk<kAligned> (staging.cuh: zeros outside).
template <int BM, int BN, int kThreads, bool kAligned, class T>
__device__ __forceinline__ void stage_swizzled_tiles(const cudalabs::GemmArgsOf<T>& args,
                                                     unsigned char* stage, int row0, int col0,
                                                     int k0) {
  // TODO(lab11): step 3, the copies into a swizzled stage.
  (void)args;
  (void)stage;
  (void)row0;
  (void)col0;
  (void)k0;
}

//  5. swizzled_stages runs the block's whole loop over K on Tile's kStages stages in the dynamic
//     shared memory (`extern __shared__ __align__(128) unsigned char` under a name of its own:
//     wmma_pipelined.cuh declares `shared` in this namespace; its start rounded up to 1024 bytes
//     with aligned_shared:
//     the swizzle repeats every 1024 bytes), through cp_async_pipeline<Tile::kStages,
//     kAsyncReaders>: load(s, t) fills stage s with tile t of K (stage_swizzled_tiles), and
//     consume(s) calls multiply(a_rows, b_panels) with the shared addresses (ptx::shared_address)
//     of stage s's A rows and B panels.
template <class Tile, bool kAligned, bool kAsyncReaders, class T, class Multiply>
__device__ __forceinline__ void swizzled_stages(const cudalabs::GemmArgsOf<T>& args, int row0,
                                                int col0, Multiply multiply) {
  // TODO(lab11): step 3, the stages of K (step 4 reuses them).
  (void)args;
  (void)row0;
  (void)col0;
  (void)multiply;
}

// Step 3, mma_swizzled_body<T, Tile, kAligned> (MmaTile: 128 x 128 x 64, 4 warps of 64 x 64, 3
// stages; MmaFp16Tile for step 3h: 128 x 64 x 64, warps of 64 x 32, 2 stages, 49 KiB, since 7.5
// has 64 KiB of shared memory per SM):
//  6. Each warp holds Tile::kWarpM / 16 x Tile::kWarpN / 8 m16n8 tiles of FP32 accumulators (4 a
//     lane). Run swizzled_stages<Tile, kAligned, false> with a multiply that, per 16 of K, loads
//     each of the warp's 16 x 16 pieces of A with ptx::ldmatrix_x4 (lane l gives the address of
//     row l % 16, chunk l / 16 of the piece), each pair of 8-column pieces of B with
//     ptx::ldmatrix_x4<true> (lane l gives k-row l % 16, the pair's first chunk + l / 16), then
//     issues mma_16x8x16(T{}, ...) (staging.cuh: m16n8k16 in BF16, or FP16, two m16n8k8 on 7.5)
//     for every m16n8 tile. Every address goes through your swizzled_offset and b_panel_offset.
//  7. Write C from the accumulators as tensor_core_ptx.cuh lays them out (lane l: rows l / 4 and
//     l / 4 + 8, columns 2 (l % 4) and the next): store_pair, with pair_stores_allowed(args).
//  Predict (3h): with 2 stages and synchronous copies on 7.5, what does the second stage still buy?
template <class T, class Tile, bool kAligned>
__device__ __forceinline__ void mma_swizzled_body(const cudalabs::GemmArgsOf<T>& args) {
  // TODO(lab11): step 3, mma.sync and ldmatrix on swizzled tiles.
  (void)args;
}

// Step 4, `wgmma` (WgmmaTile: one warpgroup, 64 x 128 x 64, 4 stages; Hopper only, sm_90a): step
// 3's stages, and instead of ldmatrix and mma.sync, per 16 of K one ptx::wgmma_bf16<128> whose
// operands stay in shared memory, read through 64-bit matrix descriptors. The PTX ISA defines them
// in "Asynchronous Warpgroup Level Matrix Shared Memory Layout", under "Matrix Descriptor": the
// start address (bits 0-13), the leading dimension byte offset (LBO, bits 16-29) and the stride
// dimension byte offset (SBO, bits 32-45), each in 16-byte units, the base offset (bits 49-51)
// and the swizzle mode (bits 62-63); ptx::wgmma_descriptor(start, LBO, SBO) packs them with the
// 128-byte swizzle and a base offset of 0. Work the numbers out from SwizzledTile and that
// section, in bytes:
//  8. The ISA reads an operand in swizzle atoms: 8 rows of 128 bytes (8 core matrices of 8 rows x
//     16 bytes, side by side), laid out as swizzled_offset does. A is K-major (a row of A holds the
//     stage's 64 k: one 128-byte row). SBO is the distance between consecutive groups of 8 rows
//     along M: how many bytes do 8 of your rows take? LBO: what does the section say a K-major
//     operand in a swizzled layout uses it for (where it is unused, pass one unit: 16)?
//  9. B is N-major (row-major B: the instruction's transpose flag, 1 for BF16, accepts it): your
//     64-column panels. SBO is the distance between consecutive groups of 8 k-rows; LBO the
//     distance from one 64-column panel to the next (a 128-byte swizzle atom of 16-bit values is
//     64 columns wide).
// 10. Per 16 of K (kk = 0 .. 3) the start addresses move: A's 16 elements along its rows (bytes?),
//     B's 16 k-rows down its panels (bytes?). The hardware applies the swizzle to the address it
//     computes, so the starts you pass are unswizzled; a stage that starts on a 1024-byte boundary
//     (where the pattern repeats) leaves the base offset 0.
//  Predict: what does a wgmma save, against step 3, in instructions issued per 16 of K?
[[maybe_unused]] __device__ __forceinline__ std::uint64_t a_descriptor(std::uint32_t a_rows,
                                                                       int kk) {
  // TODO(lab11): step 4, the descriptor of A's rows (shared address a_rows) at step kk of K.
  (void)a_rows;
  (void)kk;
  return 0;
}

[[maybe_unused]] __device__ __forceinline__ std::uint64_t b_descriptor(std::uint32_t b_panels,
                                                                       int kk) {
  // TODO(lab11): step 4, the descriptor of B's panels (shared address b_panels) at step kk of K.
  (void)b_panels;
  (void)kk;
  return 0;
}

// 11. multiply_stage<kN>(acc, a_rows, b_panels): one stage (64 of K) into a warpgroup's m64nkN
//     accumulators, kRowBlocks blocks of 64 rows (block h reads A from a_rows + 64 h rows; the
//     core uses one, the challenge two). ptx::wgmma_hold(acc[h]) for each block,
//     ptx::wgmma_fence(), then per kk and block one ptx::wgmma_bf16<kN>(acc[h], a descriptor, b
//     descriptor, 1), ptx::wgmma_commit(), ptx::wgmma_wait<0>() (the stage may be overwritten only
//     after it), and wgmma_hold again: the asynchronous instructions own the accumulators in
//     between.
template <int kN, int kRowBlocks>
__device__ __forceinline__ void multiply_stage(float (&acc)[kRowBlocks][kN / 2],
                                               std::uint32_t a_rows, std::uint32_t b_panels) {
  // TODO(lab11): step 4, one stage of wgmma.
  (void)acc;
  (void)a_rows;
  (void)b_panels;
}

// 12. wgmma_kernel: float acc[1][WgmmaTile::BN / 2] (zero), swizzled_stages<WgmmaTile, kAligned,
//     true> (true: the readers are the tensor cores, the "async proxy", so cp_async_pipeline fences
//     every thread's writes for them before the barrier) with a multiply that calls
//     multiply_stage<WgmmaTile::BN>, then store_warpgroup_tile (staging.cuh).
template <bool kAligned>
__global__ void __launch_bounds__(WgmmaTile::kThreads) wgmma_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_HOPPER_DEVICE_CODE
  // TODO(lab11): step 4, wgmma from shared-memory descriptors.
#endif
  (void)args;
}

// ---- The optional challenge: steps 5 to 7 (their own tests and points; Hopper only) ----
// The copy engine and warp specialisation, the kernels `best` runs on Hopper (elsewhere best runs
// your step 3), and the DCGAN on them. They reuse step 4's multiply_stage and the given
// store_warpgroup_tile.
//
// Step 5, `tma_wgmma_kernel` (TmaTile: 128 x 128 x 64, 4 stages): the tensor maps (launch.cuh)
//  describe A in 128 x 64 boxes and B in 64 x 64 boxes. 13. One thread initialises a "full"
//  mbarrier per stage and starts the first stages: ptx::mbarrier_arrive_expect_bytes with the
//  stage's bytes, then ptx::tma_load_2d for A's box and B's two panels. Everyone waits on the
//  stage's barrier (parity = how many times the stage was used, mod 2), multiplies both 64-row
//  halves, waits for the wgmma, barriers, and the thread refills the stage.
__global__ void __launch_bounds__(TmaTile::kThreads)
    tma_wgmma_kernel(cudalabs::Bf16GemmArgs args, const __grid_constant__ CUtensorMap a_map,
                     const __grid_constant__ CUtensorMap b_map) {
#if LAB11_HOPPER_DEVICE_CODE
  // TODO(lab11): step 5, TMA and an mbarrier pipeline feeding wgmma.
#endif
  (void)args;
  (void)a_map;
  (void)b_map;
}

// Step 6, `warp_specialized_kernel<kWidth, kRows>` (SpecializedTile: a producer and kRows / 64
// consumer warpgroups on kRows x kWidth x 64 tiles, persistent; 128 x 256 for `warp_specialized`,
// 128 x 128 for `warp_specialized_128`, 64 x 128 for `warp_specialized_64x128`, and 128 x 64, 64 x
// 64 where `best` runs a C of few columns or rows: write it for kRows 128 or 64 and any kWidth that
// is a multiple of 64):
// 14. Warpgroup 0 produces: ptx::set_max_registers<40, false>, then one thread walks this block's
//     units of work (work_units.h: unit blockIdx.x, + gridDim.x, ... < units.count(); each is
//     tile units.tile(u), in grouped order through work_units.h's grouped_tile, over k-blocks
//     units.first_k_block(u) .. units.end_k_block(u) - 1: all of K, unless `best` splits it) and,
//     per stage, waits on its "empty" barrier and issues the TMA loads. Warpgroups 1 (and 2)
//     consume the same units: set_max_registers<232, true>, wait on "full", wgmma_bf16<kWidth> on
//     their 64 rows, wait, and each warp arrives on "empty"; a unit's tile is stored into
//     units.output(args, u) (C, or its slice's partial C when K is split; its alignment is the
//     output's own, so take the store's width from it for each unit), and then each
//     consumer warpgroup calls the given finish_unit<kWidth, kRows>(args, units, u, row0, col0,
//     consumer) (unit_finish.cuh: where K is split, the last slice to arrive sums the slices
//     into C).
//  Predict: the bytes per FLOP a 128 x 256 x 64 stage needs, against the bandwidth lab 00
//  measured.
template <int kWidth, int kRows>
__global__ void __launch_bounds__(SpecializedTile<kWidth, kRows>::kThreads, 1)
    warp_specialized_kernel(cudalabs::Bf16GemmArgs args, const __grid_constant__ CUtensorMap a_map,
                            const __grid_constant__ CUtensorMap b_map, WorkUnits units) {
#if LAB11_HOPPER_DEVICE_CODE
  // TODO(lab11): step 6, producer and consumer warpgroups on a persistent grid.
#endif
  (void)args;
  (void)a_map;
  (void)b_map;
  (void)units;
}

// Step 7, `subpixel_wgmma_kernel<kWidth, kRowBlocks>` (SubpixelTile; dcgan_layers.h,
// subpixel_params.h, subpixel_plan.h): the DCGAN's transposed convolutions on step 6's kernel. A
// work item is one sub-pixel phase z's tile of BM input pixels by kWidth output channels
// (subpixel_params.h's fields say how many); the stages' size and number are p.stage_bytes and
// p.stages (the plan's), the full and empty barriers after them.
// 15. The producer walks k steps (phase_k_steps) of one tap, or with p.halo of one column of taps
//     tx, times C / 64 channel blocks (T = __nv_bfloat16). One tap (ty, tx): ptx::tma_load_4d of
//     the activations at (64 * block, input_offset(px, tx), i0 + input_offset(py, ty), n0), where
//     (n0, i0) is the tile's first pixel, and B's panels at row phase_first_row(z) + tap * C +
//     64 * block of the packed filter. TMA writes zeros where a tap leaves the image. A column
//     (p.halo): the box at row i0 - 1 (the map's boxes are two rows higher), then B's panels of
//     each tap ty of the column, p.a_box_bytes + ty * kWidth * 128 bytes into the stage.
// 16. The consumers multiply as in step 6 (kRowBlocks blocks of 64 pixels each). Block h's rows
//     sit at (m / p.image_pixels) * p.box_pixels + m % p.image_pixels pixels into the box (m its
//     first pixel in the tile); with p.halo tap ty reads them 1 + input_offset(py, ty) image rows
//     further (a multiple of 1024 bytes, so the same descriptors). The epilogue stores
//     BF16(max(0, acc * scale[k] + shift[k])) (ReLU only when p.relu) to output pixel
//     (n, 2 i + py, 2 j + px), and nothing for pixels past the batch. (Where p.store_by_copy,
//     c_map is the output by phase, boxes of 64 channels x 64 pixels: tma_maps.h's
//     phase_output_map; the solution's epilogue stages its tiles in shared memory and has the
//     copy engine store them. Storing each value yourself is right too.)
// 17. T = float takes TF32 inputs: a stage holds stage_channels<float>() = 32 channels, B is the
//     transposed filter (K-major: one TMA box of BN rows at (column, col0) a tap), ptx::wgmma_tf32
//     with a K-major descriptor for B (as A's), and the epilogue stores ptx::round_to_tf32 values.
//  Predict: how many bytes of A does a layer read from L2 with a box per tap, and with the halo?
// 18. (Beyond the step) Tiles by position: near the edges of a small image many taps multiply the
//     copy engine's zeros (28 % of tconv1's at 4 x 4). With p.by_position an item is p.row_tiles'
//     tile of BM images at one input pixel (p.positions of them a phase), a k step one tap that
//     reaches inside (lab09::subpixel::reaching_taps), its box one pixel of BM images. To take
//     such items, `#define LAB11_SUBPIXEL_BY_POSITION 1` before the last include.
template <int kWidth, int kRowBlocks, class T>
__global__ void __launch_bounds__(SubpixelTile<kWidth, kRowBlocks>::kThreads, 1)
    subpixel_wgmma_kernel(SubpixelParams<T> p, const __grid_constant__ CUtensorMap a_map,
                          const __grid_constant__ CUtensorMap b_map,
                          const __grid_constant__ CUtensorMap c_map) {
#if LAB11_HOPPER_DEVICE_CODE
  // TODO(lab11): step 7, the DCGAN's sub-pixel phases as implicit GEMMs on tensor cores.
#endif
  (void)p;
  (void)a_map;
  (void)b_map;
  (void)c_map;
}

}  // namespace
}  // namespace lab11

#include "launch.cuh"

#include "dcgan_launch.cuh"
