// Lab 07: wide loads and warp tiling. YOUR KERNELS GO HERE, in four steps (the core); each step is
// a variant of its own (`--variant step1_wide_loads`, ...), tested, timed and profiled alone, so
// you can see what each lesson buys before the next. Start from your lab 06 prefetch_regs kernel.
//
// Each lesson is a helper that you write once, in the step that first needs it, and that every
// later step calls again: step 2 adds only the warp tile, step 3 only the prefetch, step 4 only
// cp.async. The helpers' signatures and contracts are below, each with a TODO body.
// Given: outer_product (the FFMAs of one step) and store_patch (the stores of a patch of C with the
// alpha/beta update) in register_patch.cuh; the shared tiles' layout in shared_tiles.cuh
// (StepATile and StepBTile for steps 1 to 3, AsyncStages for step 4); the tile shapes in tiles.h;
// the grids and launches in launch.cuh. Unroll (#pragma unroll) every loop that indexes the
// accumulators or the fragments: a loop index the compiler cannot resolve puts the whole array in
// local memory (`cmake -DCUDALABS_PTXAS_VERBOSE=ON` reports it as spill stores).
//
// Step 1, `wide_loads_kernel<kVector>`: lab 06's kernel (StepTile: 128 x 128 x 8, 256 threads,
// 8 x 8 outputs per thread, two shared buffers, one barrier per tile), with 128-bit global loads.
//  1. load_four: 4 consecutive floats of a row as one float4 (one 128-bit load, or scalar loads).
//  2. load_tile_share and store_tile_share: a thread's share of a tile, one float4 of A and one of
//     B, into registers and then into one shared buffer (A transposed through 4 scalar stores, B
//     through one 128-bit store).
//  3. The kernel: lab 06's, staging its tiles with these two. Each thread keeps lab 06's 8 x 8
//     patch of consecutive rows and columns (rows 8 * (tid / 16), columns 8 * (tid % 16) of the
//     block tile), reads its fragments one float at a time, and stores it with
//     store_patch<8, 8, 4, 4, false>.
//  Predict before you time it: how many global load instructions does a block issue per tile now,
//  against lab 06's? Where is the time going instead (make profile N=07)?
//
// Step 2, `warp_tiles_kernel<kVector>`: step 1 with warp tiling (StepTile's warps and lanes).
//  4. LanePieces, load_pieces, load_fragments and store_lane_patch: where a lane's 4 x 4 pieces
//     sit in its warp's tile, its fragments of one step as one 128-bit shared load per piece, and
//     its stores.
//  5. The kernel: step 1's, with each step's fragments read by load_fragments and the patch stored
//     by store_lane_patch.
//  Predict: the shared-memory wavefronts per load instruction, before and after (bank conflicts).
//
// Step 3, `prefetch_kernel<kVector>`: step 2 with the shared->register prefetch.
//  6. multiply_tile: the steps of one tile, step k + 1's fragments loaded into a second register
//     slot while step k's FFMAs run.
//  7. The kernel: step 2's, the first tile's step-0 fragments loaded before the loop and each tile
//     multiplied by multiply_tile; at its last step the next tile goes into the other buffer,
//     a barrier, and its step-0 fragments (the barrier at the end of the tile loop goes away).
//  Predict: which stall reason of step 2's profile should shrink, and by how much?
//
// Step 4, `async_wide_gemm_kernel<Tile, kVector, kStages>` (AsyncTile, kAsyncStages: tiles.h):
// step 3 on a 128 x 256 tile fed by cp.async (common/async_copy.cuh) instead of register staging:
// no register holds a tile in flight.
//  8. copy_four_async: load_four's cp.async form, from global memory straight into shared memory.
//  9. The kernel: kStages stages in dynamic shared memory (AsyncStages); tile t's copies started
//     with copy_four_async (A transposed through 4-byte copies, B through 16-byte copies when
//     kVector allows) and committed as one group; step 3's multiply_tile on each stage. The grid
//     is 1-D: take this block's tile from swizzled_tile_origin<Tile> (k_slice.cuh, given), and
//     store C with store_lane_patch's 128-bit stores (kVectorStores true).
//  Predict: a 128-bit LDG and four STS against four 4-byte cp.async for a float4 of A. Which wins?
//
// The optional challenge (its own tests and points) is at the end of this file.
#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "lab.h"
#include "labs/07_wide_loads/k_slice.cuh"
#include "labs/07_wide_loads/register_patch.cuh"
#include "labs/07_wide_loads/shared_tiles.cuh"
#include "labs/07_wide_loads/tiles.h"

namespace lab07 {
namespace {

// ---- The core: steps 1 to 4 ----

// ---- Step 1: a thread's share of a tile, 128 bits at a time ----

// Four consecutive floats of row `row`, columns col .. col + 3, of a rows x cols matrix whose rows
// are ld floats apart; zeros outside it. When kVector and all four lie inside the matrix, one
// 128-bit load (__ldg of a float4: kVector promises that the matrix is 16-byte aligned with ld a
// multiple of 4); otherwise four scalar loads, each only where it is inside (never a partial
// vector load).
template <bool kVector>
__device__ __forceinline__ float4 load_four(const float* __restrict__ matrix, int row, int col,
                                            int rows, int cols, int ld) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (row >= rows) return v;
  const float* p = matrix + row * ld + col;
  if (kVector && col + 3 < cols) return __ldg(reinterpret_cast<const float4*>(p));
  if (col < cols) v.x = __ldg(p);
  if (col + 1 < cols) v.y = __ldg(p + 1);
  if (col + 2 < cols) v.z = __ldg(p + 2);
  if (col + 3 < cols) v.w = __ldg(p + 3);
  return v;
}

// A thread's share of a StepTile, in registers between its global loads and its shared stores:
// with 256 threads and tiles of 128 x 8 (A) and 8 x 128 (B), one float4 of each.
struct StagedFloat4s {
  float4 a, b;
};

// This thread's share of the tile whose corner is (row0, k0) in A and (k0, col0) in B, through
// load_four: A's row row0 + tid / 2, columns k0 + 4 * (tid % 2) ..; B's row k0 + tid / 32, columns
// col0 + 4 * (tid % 32) ...
template <bool kVector>
__device__ __forceinline__ StagedFloat4s load_tile_share(const cudalabs::GemmArgs& args, int row0,
                                                         int col0, int k0) {
  const int tid = threadIdx.x;
  StagedFloat4s staged;
  staged.a =
      load_four<kVector>(args.a, row0 + tid / 2, k0 + 4 * (tid % 2), args.m, args.k, args.lda);
  staged.b =
      load_four<kVector>(args.b, k0 + tid / 32, col0 + 4 * (tid % 32), args.k, args.n, args.ldb);
  return staged;
}

// The share into one shared buffer (a_tile a StepATile, b_tile a StepBTile: one buffer of each):
// A transposed, a_tile[k][m] for its 4 values (m = tid / 2, k = 4 * (tid % 2) ..), through four
// scalar stores (the kPadA floats of padding keep a warp's stores on 32 banks); B as it is, one
// 128-bit store into b_tile[tid / 32][4 * (tid % 32)].
template <class ATile, class BTile>
__device__ __forceinline__ void store_tile_share(const StagedFloat4s& staged, ATile& a_tile,
                                                 BTile& b_tile) {
  const int tid = threadIdx.x;
  const int m = tid / 2, k = 4 * (tid % 2);
  a_tile[k][m] = staged.a.x;
  a_tile[k + 1][m] = staged.a.y;
  a_tile[k + 2][m] = staged.a.z;
  a_tile[k + 3][m] = staged.a.w;
  *reinterpret_cast<float4*>(&b_tile[tid / 32][4 * (tid % 32)]) = staged.b;
}

// ---- Step 2: the warp tile ----

// One lane's place in the block tile: its first 4 x 4 piece starts at row `row`, column `col`, and
// its other pieces follow every LANES_M * 4 rows and LANES_N * 4 columns (TM / 4 x TN / 4 pieces in
// all). Warp w owns the warp tile at rows (w / WARPS_N) * WM, columns (w % WARPS_N) * WN; lane l
// sits at (l / LANES_N) * 4, (l % LANES_N) * 4 within it (Tile is a TileShape, tiles.h).
template <class Tile>
struct LanePieces {
  int row, col;
  __device__ LanePieces() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    row = (warp / Tile::WARPS_N) * Tile::WM + (lane / Tile::LANES_N) * 4;
    col = (warp % Tile::WARPS_N) * Tile::WN + (lane % Tile::LANES_N) * 4;
  }
};

// N / 4 float4s from shared memory into to[]: the p-th, from + p * kStride .. + 3, into to[4 * p]
// .. to[4 * p + 3], one 128-bit shared load each (a helper for load_fragments).
template <int kStride, int N>
__device__ __forceinline__ void load_pieces(const float* from, float (&to)[N]) {
#pragma unroll
  for (int p = 0; p < N / 4; ++p) {
    const float4 v = *reinterpret_cast<const float4*>(from + p * kStride);
    to[4 * p] = v.x;
    to[4 * p + 1] = v.y;
    to[4 * p + 2] = v.z;
    to[4 * p + 3] = v.w;
  }
}

// Step k's fragments of this lane: its TM values of A from row k of the transposed A tile (a_row
// points at a_tile[k]) and its TN values of B from row k of the B tile (b_row), each piece's 4
// values one 128-bit shared load (a float4 at a_row + lane.row + p * LANES_M * 4, p < TM / 4;
// likewise for B with lane.col and LANES_N * 4).
template <class Tile>
__device__ __forceinline__ void load_fragments(const float* a_row, const float* b_row,
                                               const LanePieces<Tile>& lane,
                                               float (&a_frag)[Tile::TM],
                                               float (&b_frag)[Tile::TN]) {
  load_pieces<Tile::LANES_M * 4>(a_row + lane.row, a_frag);
  load_pieces<Tile::LANES_N * 4>(b_row + lane.col, b_frag);
}

// C = alpha * acc + beta * C for this lane's pieces of the block tile at (row0, col0): store_patch
// with the lane's place and its pieces' strides; 128-bit stores where C allows when kVectorStores.
template <class Tile, bool kVectorStores>
__device__ __forceinline__ void store_lane_patch(const cudalabs::GemmArgs& args, int row0, int col0,
                                                 const LanePieces<Tile>& lane,
                                                 const float (&acc)[Tile::TM][Tile::TN]) {
  store_patch<Tile::TM, Tile::TN, Tile::LANES_M * 4, Tile::LANES_N * 4, kVectorStores>(
      args, row0 + lane.row, col0 + lane.col, acc);
}

// ---- Step 3: the shared->register prefetch ----

// The BK steps of one tile, from its shared A tile (a_tile[k] is row k, transposed) and B tile
// (b_tile[k]). Step k's fragments are already in register slot k % 2 (a_frag[k % 2],
// b_frag[k % 2]); before step k's FFMAs, load step k + 1's into the other slot. At the last step,
// call next_tile(a_frag[0], b_frag[0]) there instead: it brings in the next tile, if there is
// one, and loads that tile's step-0 fragments into slot 0 (BK is even). Steps 3 and 4 differ only
// in their next_tile.
template <class Tile, class ATile, class BTile, class NextTile>
__device__ __forceinline__ void multiply_tile(const ATile& a_tile, const BTile& b_tile,
                                              const LanePieces<Tile>& lane,
                                              float (&a_frag)[2][Tile::TM],
                                              float (&b_frag)[2][Tile::TN],
                                              float (&acc)[Tile::TM][Tile::TN],
                                              NextTile next_tile) {
  static_assert(Tile::BK % 2 == 0, "the next tile's step 0 goes into slot 0");
#pragma unroll
  for (int k = 0; k < Tile::BK; ++k) {
    const int slot = k & 1;
    if (k + 1 < Tile::BK) {
      load_fragments<Tile>(a_tile[k + 1], b_tile[k + 1], lane, a_frag[slot ^ 1], b_frag[slot ^ 1]);
    } else {
      next_tile(a_frag[0], b_frag[0]);
    }
    outer_product<Tile::TM, Tile::TN>(a_frag[slot], b_frag[slot], acc);
  }
}

// ---- Step 4: cp.async ----

// load_four's cp.async form: starts copying the four floats of row `row`, columns col .. col + 3,
// into shared memory at to[0], to[kStride], to[2 * kStride] and to[3 * kStride]; zeros outside the
// matrix (a copy whose `valid` is false writes a zero). One 16-byte copy (async_copy_16) when
// kVector, kStride is 1 and all four lie inside the matrix; four 4-byte copies (async_copy_4)
// otherwise.
template <bool kVector, int kStride>
__device__ __forceinline__ void copy_four_async(float* to, const float* matrix, int row, int col,
                                                int rows, int cols, int ld) {
  const bool row_inside = row < rows;
  const float* src = row_inside ? matrix + row * ld + col : matrix;
  if (kVector && kStride == 1 && row_inside && col + 3 < cols) {
    cudalabs::async_copy_16(to, src, true);
    return;
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const bool valid = row_inside && col + q < cols;
    cudalabs::async_copy_4(to + q * kStride, valid ? src + q : matrix, valid);
  }
}

// ---- The four kernels ----

template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    wide_loads_kernel(cudalabs::GemmArgs args) {
  constexpr int BK = StepTile::BK, TM = StepTile::TM, TN = StepTile::TN;
  __shared__ __align__(16) StepATile a_tile[2];
  __shared__ __align__(16) StepBTile b_tile[2];
  const int row0 = blockIdx.y * StepTile::BM, col0 = blockIdx.x * StepTile::BN;
  const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
  const int tiles = (args.k + BK - 1) / BK;
  float acc[TM][TN] = {};

  store_tile_share(load_tile_share<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    const bool more = t + 1 < tiles;
    StagedFloat4s next;
    if (more) next = load_tile_share<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a_frag[TM], b_frag[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a_frag[i] = a_tile[buf][k][TM * ty + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_frag[j] = b_tile[buf][k][TN * tx + j];
      outer_product<TM, TN>(a_frag, b_frag, acc);
    }
    if (more) {
      store_tile_share(next, a_tile[buf ^ 1], b_tile[buf ^ 1]);
      __syncthreads();
    }
  }
  store_patch<8, 8, 4, 4, false>(args, row0 + TM * ty, col0 + TN * tx, acc);
}

template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    warp_tiles_kernel(cudalabs::GemmArgs args) {
  constexpr int BK = StepTile::BK, TM = StepTile::TM, TN = StepTile::TN;
  __shared__ __align__(16) StepATile a_tile[2];
  __shared__ __align__(16) StepBTile b_tile[2];
  const int row0 = blockIdx.y * StepTile::BM, col0 = blockIdx.x * StepTile::BN;
  const LanePieces<StepTile> lane;
  const int tiles = (args.k + BK - 1) / BK;
  float acc[TM][TN] = {};

  store_tile_share(load_tile_share<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    const bool more = t + 1 < tiles;
    StagedFloat4s next;
    if (more) next = load_tile_share<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a_frag[TM], b_frag[TN];
      load_fragments<StepTile>(a_tile[buf][k], b_tile[buf][k], lane, a_frag, b_frag);
      outer_product<TM, TN>(a_frag, b_frag, acc);
    }
    if (more) {
      store_tile_share(next, a_tile[buf ^ 1], b_tile[buf ^ 1]);
      __syncthreads();
    }
  }
  store_lane_patch<StepTile, false>(args, row0, col0, lane, acc);
}

template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    prefetch_kernel(cudalabs::GemmArgs args) {
  constexpr int BK = StepTile::BK, TM = StepTile::TM, TN = StepTile::TN;
  __shared__ __align__(16) StepATile a_tile[2];
  __shared__ __align__(16) StepBTile b_tile[2];
  const int row0 = blockIdx.y * StepTile::BM, col0 = blockIdx.x * StepTile::BN;
  const LanePieces<StepTile> lane;
  const int tiles = (args.k + BK - 1) / BK;
  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];

  store_tile_share(load_tile_share<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  load_fragments<StepTile>(a_tile[0][0], b_tile[0][0], lane, a_frag[0], b_frag[0]);
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    const bool more = t + 1 < tiles;
    StagedFloat4s next;
    if (more) next = load_tile_share<kVector>(args, row0, col0, (t + 1) * BK);
    multiply_tile<StepTile>(a_tile[buf], b_tile[buf], lane, a_frag, b_frag, acc,
                            [&](float(&a_next)[TM], float(&b_next)[TN]) {
                              if (!more) return;
                              store_tile_share(next, a_tile[buf ^ 1], b_tile[buf ^ 1]);
                              __syncthreads();
                              load_fragments<StepTile>(a_tile[buf ^ 1][0], b_tile[buf ^ 1][0], lane,
                                                       a_next, b_next);
                            });
  }
  store_lane_patch<StepTile, false>(args, row0, col0, lane, acc);
}

template <class Tile, bool kVector, int kStages>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    async_wide_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, TM = Tile::TM, TN = Tile::TN;
  constexpr int kThreads = Tile::kThreads;
  const auto stages = AsyncStages<Tile, kStages>::in_dynamic_shared_memory();
  const int2 origin = swizzled_tile_origin<Tile>(args.m, args.n, static_cast<int>(blockIdx.x));
  const int row0 = origin.x, col0 = origin.y;
  const int tid = threadIdx.x;
  const LanePieces<Tile> lane;
  const int tiles = (args.k + BK - 1) / BK;
  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];

  const auto start_tile = [&](int t) {
    if (t < tiles) {
      const int k0 = t * BK;
      auto& a = stages.a(t);
      auto& b = stages.b(t);
#pragma unroll
      for (int r = 0; r < BM * BK / 4 / kThreads; ++r) {
        const int v = tid + r * kThreads;
        const int m = v / (BK / 4), k = 4 * (v % (BK / 4));
        copy_four_async<kVector, BM + kPadA>(&a[k][m], args.a, row0 + m, k0 + k, args.m, args.k,
                                             args.lda);
      }
#pragma unroll
      for (int r = 0; r < BK * BN / 4 / kThreads; ++r) {
        const int v = tid + r * kThreads;
        const int k = v / (BN / 4), n = 4 * (v % (BN / 4));
        copy_four_async<kVector, 1>(&b[k][n], args.b, k0 + k, col0 + n, args.k, args.n, args.ldb);
      }
    }
    cudalabs::async_copy_commit();
  };

#pragma unroll
  for (int s = 0; s < kStages; ++s) start_tile(s);
  cudalabs::async_copy_wait<kStages - 1>();
  __syncthreads();
  load_fragments<Tile>(stages.a(0)[0], stages.b(0)[0], lane, a_frag[0], b_frag[0]);
  for (int t = 0; t < tiles; ++t) {
    multiply_tile<Tile>(stages.a(t), stages.b(t), lane, a_frag, b_frag, acc,
                        [&](float(&a_next)[TM], float(&b_next)[TN]) {
                          cudalabs::async_copy_wait<kStages - 2>();
                          __syncthreads();
                          start_tile(t + kStages);
                          if (t + 1 < tiles)
                            load_fragments<Tile>(stages.a(t + 1)[0], stages.b(t + 1)[0], lane,
                                                 a_next, b_next);
                        });
  }
  store_lane_patch<Tile, true>(args, row0, col0, lane, acc);
}

// ---- The optional challenge: the kernels `best` runs ----
// Its own tests and points. `best`'s planner and launches are given (best_plan.h, launch.cuh,
// split_k.cuh, k_slice.cuh, stream_k.h; the handout's "How a library chooses a kernel"); the
// variants `wide_*`, `narrow_columns` and `best` run your kernels below.
//
// Challenge A, `wide_gemm_kernel<Tile, kVector, kSplit>`: step 3 for any TileShape of BestTiles,
// with everything that is not an FFMA taken out of the loop. Its body is given: a lambda that
// computes tile number `tile` of a GEMM `gemm`; for_each_tile_of_block (k_slice.cuh) calls it with
// this block's work, the whole of K, a slice (split-K) or pieces (stream-K), each a GEMM like any
// other. (Lab 09's sub-pixel kernel reuses this tile loop with another A: its skeleton's "Your warp
// tile" section gives the contract, which you may follow here.) Your core helpers serve again:
// load_four, LanePieces, load_fragments, store_lane_patch.
//  A1. Stage any tile: thread tid moves float4s tid, tid + kThreads, ... of each tile (A's float4
//      v at row v / (BK / 4), columns 4 * (v % (BK / 4)) ..; B's at row v / (BN / 4), columns
//      4 * (v % (BN / 4)) ..).
//  A2. Write the tile loop once per shared buffer (a compile-time 0 or 1, e.g. a template lambda or
//      an unrolled pair of iterations), so that every shared address is a base register plus a
//      constant, with no buffer arithmetic in the loop.
//  A3. Every tile but the last takes plain loads with no bounds tests (128-bit when kVector, four
//      scalar loads otherwise), edge blocks too: a row of A below C's last row reads the last row
//      instead, a float4 of B right of C's last column the float4 that holds that column (clamp
//      the index; what those rows and columns compute is never stored). The tile that holds K's
//      end takes the checked loads of step 1, and so does the tile that holds B's last row when
//      N % 4 != 0: the float4 holding column N - 1 then reaches past it, which stays inside B for
//      every row but the last. In a GEMM of one wave the slowest block sets the time.
//  A4. Take the tile from swizzled_tile_origin<Tile>(gemm.m, gemm.n, tile), and store C four
//      columns at a time where C allows it (store_lane_patch with kVectorStores true).
//  A5. Declare the kernel __launch_bounds__(Tile::kThreads, Tile::kMinBlocks) (tiles.h): without
//      the cap the compiler may take registers that cost a block per SM (lab 06 shows what that
//      costs). There must be no spills.
//  A6. Once every thread has stored its part of the tile, call part.stored() (every thread: it
//      holds a barrier). Under split-K and stream-K it counts the part, and the tile's last part
//      to arrive sums all of them into C in the same launch; with K whole it does nothing.
//
// Challenge B, `narrow_gemm_kernel<kCols, kSlicedK>` (the handout's "Optional challenge"): a C only
// a few columns wide, where any tile computes mostly zeros.
//  B1. Warp w of block b computes rows row0 .. row0 + kNarrowRows - 1 of C, row0 =
//      ((b / chunks) * kNarrowWarps + w) * kNarrowRows, over the column chunk col0 = (b % chunks) *
//      kCols (chunks = ceil(N / kCols); tiles.h). Lane l takes k = l, l + 32, ...: each of its
//      loads of A is one float of a row, so a warp's 32 loads are 128 contiguous bytes whatever A's
//      alignment. Multiply each by the kCols values of B's row k (zeros past N), then add the
//      lanes' sums with __shfl_xor_sync and store the rows and columns inside C.
//  B5. Then every thread calls part.stored(), as in A6: a warp below C's last row too.
//  Predict first: the handout's reading, question (d).

template <class Tile, bool kVector, KSplit kSplit>
__global__ void wide_gemm_kernel(cudalabs::GemmArgs args, cudalabs::SplitFinish finish) {
  // Given: best's share-out of K (k_slice.cuh) calls the lambda for each tile this block computes.
  // Declare the shared tiles above it, so that every call uses the same ones.
  for_each_tile_of_block<Tile, kSplit>(
      args, finish, [&](const cudalabs::GemmArgs& gemm, int tile, const TilePart& part) {
        // TODO(lab07): challenge A, tile number `tile` of gemm, as described above; then
        // part.stored().
        (void)gemm;
        (void)tile;
        (void)part;
      });
}

template <int kCols, bool kSlicedK>
__global__ void __launch_bounds__(kNarrowThreads)
    narrow_gemm_kernel(cudalabs::GemmArgs args, cudalabs::SplitFinish finish) {
  // Given: best's split-K (k_slice.cuh), the block's part of C, then its slice of K.
  const TilePart part = narrow_block_part<kCols>(args, finish);
  if constexpr (kSlicedK) args = k_slice_of_block(args);
  // TODO(lab07): challenge B, the narrow kernel described above; then part.stored().
  (void)args;
  (void)part;
}

}  // namespace
}  // namespace lab07

#include "launch.cuh"
