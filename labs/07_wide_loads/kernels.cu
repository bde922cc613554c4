// Lab 07: wide loads and warp tiling. YOUR KERNELS GO HERE, in five steps; each step is a variant
// of its own (`--variant step1_wide_loads`, ...), tested and timed alone, so you can see what each
// lesson buys before the next. Start from your lab 06 prefetch_regs kernel.
//
// Step 1, `wide_loads_kernel<kVector>`: lab 06's kernel (StepTile in tiles.h: 128 x 128 x 8, 256
// threads, 8 x 8 outputs per thread, two shared buffers, one barrier per tile), with 128-bit
// global loads:
//  1. Each thread loads its share of the A and B tiles as float4s (the 4 consecutive k of a row of
//     A, the 4 consecutive columns of a row of B): one float4 of each per tile. When kVector is
//     false, or a float4 would cross the matrix's edge, load the 4 floats one by one (zeros
//     outside).
//  2. A goes to shared memory transposed, a_tile[buffer][k][m] with rows padded by kPadA (4 scalar
//     stores); B as one 128-bit store into b_tile[buffer][k][n].
//  Unroll (#pragma unroll) every loop that indexes the accumulators, including their zeroing and
//  the final stores: a loop index the compiler cannot resolve puts the whole array in local memory
//  (ptxas -v reports it as spill stores).
//  Predict before you time it: how many global load instructions does a block issue per tile now,
//  against lab 06's? Where is the time going instead (make profile N=07)?
//
// Step 2, `warp_tiles_kernel<kVector>`: step 1 with warp tiling (StepTile's warps and lanes):
//  3. Warp w owns the warp tile at (w / WARPS_N) * WM, (w % WARPS_N) * WN; lane l sits at
//     lane_m = l / LANES_N, lane_n = l % LANES_N and owns TM x TN outputs made of 4 x 4 pieces:
//     rows lane_m * 4 + g * LANES_M * 4, columns lane_n * 4 + h * LANES_N * 4 (g < TM / 4,
//     h < TN / 4). Load each piece's 4 values with one 128-bit shared load.
//  Predict: the shared-memory wavefronts per load instruction, before and after (bank conflicts).
//
// Step 3, `wide_gemm_kernel<Tile, kVector, kSplit>`: step 2 for any TileShape, with everything
// that is not an FFMA taken out of the loop. Write it as four helpers and a block object, because
// lab 09's sub-pixel kernel reuses the helpers with another A (its skeleton's "Your warp tile"
// section gives their contract): LanePieces<Tile> (item 3's lane mapping), load_fragments (one
// step's fragments), outer_product (its FFMAs) and multiply_staged_tiles<Tile>(block, tiles) (the
// tile loop below), over a block that stages its own tiles (load_next_tile). kSplit is given: the
// kernel's body is a lambda that computes tile number `tile` of a GEMM `gemm`, and
// for_each_tile_of_block calls it with this block's work: args and blockIdx.x, or, when `best`
// shares out K (split-K, stream-K), a slice or pieces of it, each a GEMM like any other.
//  4. Shared->register prefetch: keep two slots of fragments; while step k's FFMAs run, load step
//     k + 1's fragments into the other slot (for the last k, from the next tile, after the
//     barrier).
//  5. Write the tile loop once per shared buffer (a compile-time 0 or 1, e.g. a template lambda or
//     an unrolled pair of iterations), so that every shared address is a base register plus a
//     constant, with no buffer arithmetic in the loop.
//  6. Every tile but the last takes plain loads with no bounds tests (128-bit when kVector, four
//     scalar loads otherwise), edge blocks too: a row of A below C's last row reads the last row
//     instead, a float4 of B right of C's last column the float4 that holds that column (clamp the
//     index; what those rows and columns compute is never stored). The tile that holds K's end
//     takes the checked loads of step 1, and so does the tile that holds B's last row when
//     N % 4 != 0: the float4 holding column N - 1 then reaches past it, which stays inside B for
//     every row but the last. In a GEMM of one wave the slowest block sets the time.
//  7. Map the tile number (blockIdx.x when K is not shared out) to a tile so that consecutive
//     tiles walk down kGroupRows block rows.
//  8. Store C four columns at a time when C allows it and the 4 columns are inside C. kVector says
//     nothing about C: test C's alignment (16 bytes) and ldc % 4 once, at the start.
//  9. Declare the kernel __launch_bounds__(Tile::kThreads, Tile::kMinBlocks) (tiles.h): without the
//     cap the compiler may take registers that cost a block per SM (lab 06 shows what that costs).
//     `cmake -DCUDALABS_PTXAS_VERBOSE=ON` shows registers and spills: there must be none.
//
// Step 4, `async_wide_gemm_kernel<Tile, kVector, kStages>`: step 3 fed by cp.async (below).
//
// Step 5, `narrow_gemm_kernel<kCols, kSlicedK>` (the handout's "Off the tile grid"): a C only a few
// columns wide, where any tile computes mostly zeros.
// 10. Warp w of block b computes rows row0 .. row0 + kNarrowRows - 1 of C, row0 =
//     ((b / chunks) * kNarrowWarps + w) * kNarrowRows, over the column chunk col0 = (b % chunks) *
//     kCols (chunks = ceil(N / kCols); tiles.h). Lane l takes k = l, l + 32, ...: each of its loads
//     of A is one float of a row, so a warp's 32 loads are 128 contiguous bytes whatever A's
//     alignment. Multiply each by the kCols values of B's row k (zeros past N), then add the lanes'
//     sums with __shfl_xor_sync and store the rows and columns inside C.
//  Predict: at 40960 x 3 x 1600, how many bytes must be read, and how long does that take at the
//  bandwidth lab 00 measured? What fraction of a 128 x 64 tile's FFMAs are useful?
#include "common/gemm_device.cuh"
#include "lab.h"
#include "labs/07_wide_loads/k_slice.cuh"
#include "tiles.h"

namespace lab07 {
namespace {

template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    wide_loads_kernel(cudalabs::GemmArgs args) {
  // TODO(lab07): step 1, lab 06's kernel with 128-bit global loads.
  (void)args;
}

template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    warp_tiles_kernel(cudalabs::GemmArgs args) {
  // TODO(lab07): step 2, step 1 with warp tiles and 128-bit shared loads.
  (void)args;
}

template <class Tile, bool kVector, KSplit kSplit>
__global__ void wide_gemm_kernel(cudalabs::GemmArgs args) {
  // Given: best's share-out of K (k_slice.cuh) calls the lambda for each tile this block computes.
  // Declare the shared tiles above it, so that every call uses the same ones.
  for_each_tile_of_block<Tile, kSplit>(args, [&](const cudalabs::GemmArgs& gemm, int tile) {
    // TODO(lab07): step 3, the wide-load, warp-tiled, prefetching GEMM described above: tile
    // number `tile` of gemm.
    (void)gemm;
    (void)tile;
  });
}

// The same kernel fed by cp.async (common/async_copy.cuh) instead of register staging: kStages
// stages in dynamic shared memory (extern __shared__), each one transposed A tile of BK x (BM +
// kPadA) floats followed by one B tile of BK x BN floats. A goes in through 4-byte copies
// (transposing on the way), B through 16-byte copies when kVector allows. Prologue: start tiles 0
// .. kStages - 1 (one commit each), wait for tile 0, barrier. At the last k of tile t: wait for
// tile t + 1, barrier, start tile t + kStages in the stage tile t used, prefetch tile t + 1's first
// fragments.
template <class Tile, bool kVector, int kStages>
__global__ void async_wide_gemm_kernel(cudalabs::GemmArgs args) {
  // TODO(lab07): step 4, the cp.async form of wide_gemm_kernel.
  (void)args;
}

template <int kCols, bool kSlicedK>
__global__ void __launch_bounds__(kNarrowThreads) narrow_gemm_kernel(cudalabs::GemmArgs args) {
  if constexpr (kSlicedK) args = k_slice_of_block(args);  // given: best's split-K (k_slice.cuh)
  // TODO(lab07): step 5, the narrow kernel described above.
  (void)args;
}

}  // namespace
}  // namespace lab07

#include "launch.cuh"
