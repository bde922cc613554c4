// Lab 07, a student's version of steps 1 and 2, written from the skeleton's TODO list alone (see
// tests/grading/student_versions/README.md); steps 3, 4 and 5 are left as the skeleton has them
// (brought up to date with the skeleton's given lines when its interface changed).
//
// Lab 07: wide loads and warp tiling. YOUR KERNELS GO HERE, in four steps; each step is a variant
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
// Step 3, `wide_gemm_kernel<Tile, kVector>`: step 2 for any TileShape, with everything that is not
// an FFMA taken out of the loop:
//  4. Shared->register prefetch: keep two slots of fragments; while step k's FFMAs run, load step
//     k + 1's fragments into the other slot (for the last k, from the next tile, after the
//     barrier).
//  5. Write the tile loop once per shared buffer (a compile-time 0 or 1, e.g. a template lambda or
//     an unrolled pair of iterations), so that every shared address is a base register plus a
//     constant, with no buffer arithmetic in the loop.
//  6. Interior tiles (wholly inside A and B) take plain 128-bit loads with no bounds tests; only
//     edge tiles, and the scalar instantiation, go through the checked loads of step 1.
//  7. Map blockIdx.x (a 1-D grid) to a tile so that consecutive blocks walk down kGroupRows block
//     rows.
//  8. Store C four columns at a time when kVector and the 4 columns are inside C.
//  9. Declare the kernel __launch_bounds__(Tile::kThreads, Tile::kMinBlocks) (tiles.h): without the
//     cap the compiler may take registers that cost a block per SM (lab 06 shows what that costs).
//     `cmake -DCUDALABS_PTXAS_VERBOSE=ON` shows registers and spills: there must be none.
//
// Step 4, `async_wide_gemm_kernel<Tile, kVector, kStages>`: step 3 fed by cp.async (below).
#include "common/gemm_device.cuh"
#include "lab.h"
#include "labs/07_wide_loads/k_slice.cuh"
#include "tiles.h"

namespace lab07 {
namespace {

template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    wide_loads_kernel(cudalabs::GemmArgs args) {
  // Written from the TODO list alone (steps 1-2), starting from a lab 06 prefetch_regs kernel.
  constexpr int BM = StepTile::BM, BN = StepTile::BN, BK = StepTile::BK, T = 8;
  __shared__ __align__(16) float as[2][BK][BM + kPadA];
  __shared__ __align__(16) float bs[2][BK][BN];
  const int tid = threadIdx.x;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  // my float4 of A: row tid / 2, k = (tid % 2) * 4; of B: row tid / 32, n = (tid % 32) * 4
  const int a_m = tid >> 1, a_k = (tid & 1) << 2, b_k = tid >> 5, b_n = (tid & 31) << 2;
  auto fetch = [&](const float* p, int r, int c, int rows, int cols, int ld) {
    if (kVector && r < rows && c + 4 <= cols)
      return *reinterpret_cast<const float4*>(p + (size_t)r * ld + c);
    float v[4];
    for (int q = 0; q < 4; ++q) v[q] = (r < rows && c + q < cols) ? p[(size_t)r * ld + c + q] : 0.f;
    return make_float4(v[0], v[1], v[2], v[3]);
  };
  auto put = [&](int buf, float4 a, float4 b) {
    as[buf][a_k][a_m] = a.x;
    as[buf][a_k + 1][a_m] = a.y;
    as[buf][a_k + 2][a_m] = a.z;
    as[buf][a_k + 3][a_m] = a.w;
    *reinterpret_cast<float4*>(&bs[buf][b_k][b_n]) = b;
  };
  const int ty = tid / (BN / T), tx = tid % (BN / T);
  float c[T][T];
#pragma unroll
  for (int i = 0; i < T; ++i)
#pragma unroll
    for (int j = 0; j < T; ++j) c[i][j] = 0.f;
  const int ntiles = (args.k + BK - 1) / BK;
  put(0, fetch(args.a, bm + a_m, a_k, args.m, args.k, args.lda),
      fetch(args.b, b_k, bn + b_n, args.k, args.n, args.ldb));
  __syncthreads();
  for (int t = 0; t < ntiles; ++t) {
    const int cur = t % 2;
    float4 na = {}, nb = {};
    const bool more = t + 1 < ntiles;
    if (more) {
      const int k0 = (t + 1) * BK;
      na = fetch(args.a, bm + a_m, k0 + a_k, args.m, args.k, args.lda);
      nb = fetch(args.b, k0 + b_k, bn + b_n, args.k, args.n, args.ldb);
    }
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float ra[T], rb[T];
#pragma unroll
      for (int i = 0; i < T; ++i) ra[i] = as[cur][k][ty * T + i];
#pragma unroll
      for (int j = 0; j < T; ++j) rb[j] = bs[cur][k][tx * T + j];
#pragma unroll
      for (int i = 0; i < T; ++i)
#pragma unroll
        for (int j = 0; j < T; ++j) c[i][j] += ra[i] * rb[j];
    }
    if (more) put(cur ^ 1, na, nb);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < T; ++i)
#pragma unroll
    for (int j = 0; j < T; ++j) {
      const int r = bm + ty * T + i, col = bn + tx * T + j;
      if (r < args.m && col < args.n) {
        float* out = args.c + (size_t)r * args.ldc + col;
        *out = args.beta == 0.f ? args.alpha * c[i][j] : args.alpha * c[i][j] + args.beta * *out;
      }
    }
}

template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    warp_tiles_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = StepTile::BM, BN = StepTile::BN, BK = StepTile::BK;
  constexpr int TM = StepTile::TM, TN = StepTile::TN;
  __shared__ __align__(16) float as[2][BK][BM + kPadA];
  __shared__ __align__(16) float bs[2][BK][BN];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int a_m = tid >> 1, a_k = (tid & 1) << 2, b_k = tid >> 5, b_n = (tid & 31) << 2;
  auto fetch = [&](const float* p, int r, int c, int rows, int cols, int ld) {
    if (kVector && r < rows && c + 4 <= cols)
      return *reinterpret_cast<const float4*>(p + (size_t)r * ld + c);
    float v[4];
    for (int q = 0; q < 4; ++q) v[q] = (r < rows && c + q < cols) ? p[(size_t)r * ld + c + q] : 0.f;
    return make_float4(v[0], v[1], v[2], v[3]);
  };
  auto put = [&](int buf, float4 a, float4 b) {
    as[buf][a_k][a_m] = a.x;
    as[buf][a_k + 1][a_m] = a.y;
    as[buf][a_k + 2][a_m] = a.z;
    as[buf][a_k + 3][a_m] = a.w;
    *reinterpret_cast<float4*>(&bs[buf][b_k][b_n]) = b;
  };
  // item 3: my warp tile and my lane's 4 x 4 pieces
  const int wm0 = (warp / StepTile::WARPS_N) * StepTile::WM,
            wn0 = (warp % StepTile::WARPS_N) * StepTile::WN;
  const int lm = lane / StepTile::LANES_N, ln = lane % StepTile::LANES_N;
  auto row_of = [&](int i) { return wm0 + lm * 4 + (i / 4) * StepTile::LANES_M * 4 + i % 4; };
  auto col_of = [&](int j) { return wn0 + ln * 4 + (j / 4) * StepTile::LANES_N * 4 + j % 4; };
  float c[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) c[i][j] = 0.f;
  const int ntiles = (args.k + BK - 1) / BK;
  put(0, fetch(args.a, bm + a_m, a_k, args.m, args.k, args.lda),
      fetch(args.b, b_k, bn + b_n, args.k, args.n, args.ldb));
  __syncthreads();
  for (int t = 0; t < ntiles; ++t) {
    const int cur = t % 2;
    float4 na = {}, nb = {};
    const bool more = t + 1 < ntiles;
    if (more) {
      const int k0 = (t + 1) * BK;
      na = fetch(args.a, bm + a_m, k0 + a_k, args.m, args.k, args.lda);
      nb = fetch(args.b, k0 + b_k, bn + b_n, args.k, args.n, args.ldb);
    }
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float ra[TM], rb[TN];
#pragma unroll
      for (int g = 0; g < TM / 4; ++g) {
        const float4 v = *reinterpret_cast<const float4*>(&as[cur][k][row_of(4 * g)]);
        ra[4 * g] = v.x;
        ra[4 * g + 1] = v.y;
        ra[4 * g + 2] = v.z;
        ra[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int h = 0; h < TN / 4; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(&bs[cur][k][col_of(4 * h)]);
        rb[4 * h] = v.x;
        rb[4 * h + 1] = v.y;
        rb[4 * h + 2] = v.z;
        rb[4 * h + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) c[i][j] += ra[i] * rb[j];
    }
    if (more) put(cur ^ 1, na, nb);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int r = bm + row_of(i), col = bn + col_of(j);
      if (r < args.m && col < args.n) {
        float* out = args.c + (size_t)r * args.ldc + col;
        *out = args.beta == 0.f ? args.alpha * c[i][j] : args.alpha * c[i][j] + args.beta * *out;
      }
    }
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
