// Lab 11, a student's version of the core (steps 1, 3 and 4, and the FP16 rungs 1h and 3h), written
// from the handout and the skeleton's numbered list alone
// (tests/grading/student_versions/README.md); the optional challenge (steps 5 to 7) is left as the
// skeleton has it.
//
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

// ---- Helpers shared by the rungs (a student's own) ----

// Step 1 for either input type: 2 x 2 fragments per warp, straight from global memory where the
// warp's fragments lie inside aligned operands, through a per-warp shared copy otherwise.
template <class T, bool kAligned>
__device__ __forceinline__ void wmma_global_body(const cudalabs::GemmArgsOf<T>& args) {
  using Tile = WmmaGlobalTile;
  constexpr int kWarps = Tile::kThreads / 32;
  __shared__ __align__(32) T a_piece[kWarps][32 * 16];
  __shared__ __align__(32) T b_piece[kWarps][16 * 32];
  __shared__ __align__(32) float out[kWarps][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = blockIdx.y * Tile::BM + (warp / Tile::kWarpsN) * Tile::kWarpM;
  const int col0 = blockIdx.x * Tile::BN + (warp % Tile::kWarpsN) * Tile::kWarpN;
  Accumulator acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < args.k; k0 += 16) {
    FragmentAOf<T> fa[2];
    FragmentBOf<T> fb[2];
    const bool direct = kAligned && row0 + 32 <= args.m && col0 + 32 <= args.n && k0 + 16 <= args.k;
    if (direct) {
#pragma unroll
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(fa[i], args.a + (row0 + 16 * i) * args.lda + k0, args.lda);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(fb[j], args.b + k0 * args.ldb + col0 + 16 * j, args.ldb);
    } else {
      for (int e = lane; e < 32 * 16; e += 32) {
        const int r = e / 16, c = e % 16;
        a_piece[warp][e] = row0 + r < args.m && k0 + c < args.k
                               ? args.a[(row0 + r) * args.lda + k0 + c]
                               : zero_of<T>();
      }
      for (int e = lane; e < 16 * 32; e += 32) {
        const int r = e / 32, c = e % 32;
        b_piece[warp][e] = k0 + r < args.k && col0 + c < args.n
                               ? args.b[(k0 + r) * args.ldb + col0 + c]
                               : zero_of<T>();
      }
      __syncwarp();
#pragma unroll
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], a_piece[warp] + 16 * i * 16, 16);
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], b_piece[warp] + 16 * j, 32);
      __syncwarp();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      store_fragment(args, acc[i][j], out[warp], row0 + 16 * i, col0 + 16 * j);
}

// A stage of the swizzled rungs: A as BM rows of 128 bytes (K-major), B as BN / 64 panels of 64
// k-rows of 128 bytes (N-major); chunk c of row r sits at position c ^ (r % 8).
template <class Tile, bool kAligned, class T>
__device__ __forceinline__ void stage_swizzled(const cudalabs::GemmArgsOf<T>& args,
                                               unsigned char* stage, int row0, int col0, int k0) {
  constexpr int kRow = SwizzledTile::kRowBytes, kChunksPerRow = kRow / 16;
  unsigned char* a = stage;
  unsigned char* b = stage + Tile::BM * kRow;
#pragma unroll
  for (int chunk = threadIdx.x; chunk < Tile::BM * kChunksPerRow; chunk += Tile::kThreads) {
    const int row = chunk / kChunksPerRow, c = chunk % kChunksPerRow;
    stage_chunk<kAligned>(a + row * kRow + ((c ^ (row % 8)) * 16), args.a, args.lda, args.m, args.k,
                          row0 + row, k0 + c * kChunk);
  }
  constexpr int kChunksAcross = Tile::BN / kChunk;
#pragma unroll
  for (int chunk = threadIdx.x; chunk < Tile::BK * kChunksAcross; chunk += Tile::kThreads) {
    const int kr = chunk / kChunksAcross, cc = chunk % kChunksAcross;
    const int panel = cc / kChunksPerRow, c = cc % kChunksPerRow;
    stage_chunk<kAligned>(b + panel * SwizzledTile::kPanelBytes + kr * kRow + ((c ^ (kr % 8)) * 16),
                          args.b, args.ldb, args.k, args.n, k0 + kr, col0 + cc * kChunk);
  }
}

// Step 3 for either input type and tile: ldmatrix from the swizzled stages, mma.sync m16n8k16.
template <class Tile, bool kAligned, class T>
__device__ __forceinline__ void mma_swizzled_body(const cudalabs::GemmArgsOf<T>& args) {
  extern __shared__ __align__(1024) unsigned char mma_shared[];
  unsigned char* stages = aligned_shared(mma_shared);
  constexpr int kRow = SwizzledTile::kRowBytes;
  constexpr int kMi = Tile::kWarpM / 16, kNj = Tile::kWarpN / 8;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = blockIdx.y * Tile::BM, col0 = blockIdx.x * Tile::BN;
  const int warp_m = (warp / Tile::kWarpsN) * Tile::kWarpM;
  const int warp_n = (warp % Tile::kWarpsN) * Tile::kWarpN;
  float acc[kMi][kNj][4] = {};
  const auto stage = [&](int s) { return stages + s * Tile::kStageBytes; };
  const auto load = [&](int s, int t) {
    stage_swizzled<Tile, kAligned>(args, stage(s), row0, col0, t * Tile::BK);
  };
  const auto multiply = [&](int s) {
    const unsigned char* a = stage(s);
    const unsigned char* b = a + Tile::BM * kRow;
#pragma unroll
    for (int kk = 0; kk < Tile::BK / 16; ++kk) {
      std::uint32_t af[kMi][4], bf[kNj / 2][4];
#pragma unroll
      for (int i = 0; i < kMi; ++i) {
        const int r = warp_m + 16 * i + lane % 16, chunk = 2 * kk + lane / 16;
        ptx::ldmatrix_x4<false>(af[i],
                                ptx::shared_address(a + r * kRow + ((chunk ^ (r % 8)) * 16)));
      }
#pragma unroll
      for (int p = 0; p < kNj / 2; ++p) {
        const int col = warp_n + 16 * p, kr = 16 * kk + lane % 16;
        const int chunk = (col % SwizzledTile::kPanelColumns) / kChunk + lane / 16;
        const unsigned char* panel =
            b + (col / SwizzledTile::kPanelColumns) * SwizzledTile::kPanelBytes;
        ptx::ldmatrix_x4<true>(bf[p],
                               ptx::shared_address(panel + kr * kRow + ((chunk ^ (kr % 8)) * 16)));
      }
#pragma unroll
      for (int i = 0; i < kMi; ++i)
#pragma unroll
        for (int j = 0; j < kNj; ++j)
          mma_16x8x16(T{}, acc[i][j], af[i], bf[j / 2][2 * (j % 2)], bf[j / 2][2 * (j % 2) + 1]);
    }
  };
  cp_async_pipeline<Tile::kStages, false>((args.k + Tile::BK - 1) / Tile::BK, load, multiply);
  const bool pairs = pair_stores_allowed(args);
#pragma unroll
  for (int i = 0; i < kMi; ++i)
#pragma unroll
    for (int j = 0; j < kNj; ++j) {
      const int row = row0 + warp_m + 16 * i + lane / 4,
                col = col0 + warp_n + 8 * j + 2 * (lane % 4);
      store_pair(args, row, col, acc[i][j][0], acc[i][j][1], pairs);
      store_pair(args, row + 8, col, acc[i][j][2], acc[i][j][3], pairs);
    }
}

// ---- The core: steps 1, 3 and 4, and the FP16 rungs (step 2 is given: wmma_pipelined.cuh) ----

template <bool kAligned>
__global__ void __launch_bounds__(WmmaGlobalTile::kThreads)
    wmma_global_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_BF16_TENSOR_CORES
  wmma_global_body<bf16, kAligned>(args);
#else
  (void)args;
#endif
}

template <bool kAligned>
__global__ void __launch_bounds__(MmaTile::kThreads)
    mma_swizzled_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_BF16_TENSOR_CORES
  mma_swizzled_body<MmaTile, kAligned>(args);
#else
  (void)args;
#endif
}

template <bool kAligned>
__global__ void __launch_bounds__(WmmaGlobalTile::kThreads)
    wmma_fp16_kernel(cudalabs::Fp16GemmArgs args) {
#if LAB11_FP16_TENSOR_CORES
  wmma_global_body<fp16, kAligned>(args);
#else
  (void)args;
#endif
}

template <bool kAligned>
__global__ void __launch_bounds__(MmaFp16Tile::kThreads)
    mma_fp16_kernel(cudalabs::Fp16GemmArgs args) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750  // ldmatrix and FP16 mma.sync
  mma_swizzled_body<MmaFp16Tile, kAligned>(args);
#else
  (void)args;
#endif
}

template <bool kAligned>
__global__ void __launch_bounds__(WgmmaTile::kThreads) wgmma_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_HOPPER_DEVICE_CODE
  using Tile = WgmmaTile;
  extern __shared__ __align__(1024) unsigned char wgmma_shared[];
  unsigned char* stages = aligned_shared(wgmma_shared);
  constexpr int kRow = SwizzledTile::kRowBytes;
  const int row0 = blockIdx.y * Tile::BM, col0 = blockIdx.x * Tile::BN;
  float acc[Tile::BN / 2];
  zero(acc);
  const auto stage = [&](int s) { return stages + s * Tile::kStageBytes; };
  const auto load = [&](int s, int t) {
    stage_swizzled<Tile, kAligned>(args, stage(s), row0, col0, t * Tile::BK);
  };
  const auto multiply = [&](int s) {
    const std::uint32_t a = ptx::shared_address(stage(s));
    const std::uint32_t b = a + Tile::BM * kRow;
    ptx::wgmma_hold(acc);
    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < Tile::BK / 16; ++kk) {
      // A, K-major: 8 rows of 128 bytes between groups along M (stride 1024); the leading offset
      // is unused for a K-major swizzled operand (one unit). 16 elements along K: 32 bytes.
      const std::uint64_t a_desc = ptx::wgmma_descriptor(a + 32 * kk, 16, 8 * kRow);
      // B, N-major: 8 k-rows of 128 bytes between groups along K (stride 1024); one 64-column
      // panel to the next (leading 8 KiB). 16 k-rows: 2048 bytes.
      const std::uint64_t b_desc =
          ptx::wgmma_descriptor(b + 16 * kRow * kk, SwizzledTile::kPanelBytes, 8 * kRow);
      ptx::wgmma_bf16<Tile::BN>(acc, a_desc, b_desc, 1);
    }
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();  // the stage may be refilled only after the tensor cores read it
    ptx::wgmma_hold(acc);
  };
  cp_async_pipeline<Tile::kStages, true>((args.k + Tile::BK - 1) / Tile::BK, load, multiply);
  store_warpgroup_tile<Tile::BN>(args, acc, row0, col0, pair_stores_allowed(args));
#else
  (void)args;
#endif
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
