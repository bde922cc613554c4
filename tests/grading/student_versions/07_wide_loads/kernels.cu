// Lab 07, a student's version of the core, written from the handout and the skeleton's TODO list
// alone (see tests/grading/student_versions/README.md): steps 1 and 2 in one session, steps 3 and
// 4 in a later one; the optional challenge is left as the skeleton has it.
//
// Lab 07: wide loads and warp tiling. YOUR KERNELS GO HERE, in four steps (the core); each step is
// a variant of its own (`--variant step1_wide_loads`, ...), tested, timed and profiled alone, so
// you can see what each lesson buys before the next. Start from your lab 06 prefetch_regs kernel.
// Given (register_patch.cuh): outer_product, the FFMAs of one step, and store_patch, the stores of
// a lane's patch of C with the alpha/beta update. Unroll (#pragma unroll) every loop that indexes
// the accumulators or the fragments: a loop index the compiler cannot resolve puts the whole array
// in local memory (`cmake -DCUDALABS_PTXAS_VERBOSE=ON` reports it as spill stores).
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
//  3. Each thread keeps lab 06's 8 x 8 patch of consecutive rows and columns and stores it with
//     store_patch<8, 8, 4, 4, false>.
//  Predict before you time it: how many global load instructions does a block issue per tile now,
//  against lab 06's? Where is the time going instead (make profile N=07)?
//
// Step 2, `warp_tiles_kernel<kVector>`: step 1 with warp tiling (StepTile's warps and lanes):
//  4. Warp w owns the warp tile at (w / WARPS_N) * WM, (w % WARPS_N) * WN; lane l sits at
//     lane_m = l / LANES_N, lane_n = l % LANES_N and owns TM x TN outputs made of 4 x 4 pieces:
//     rows lane_m * 4 + g * LANES_M * 4, columns lane_n * 4 + h * LANES_N * 4 (g < TM / 4,
//     h < TN / 4). Load each piece's 4 values of a fragment with one 128-bit shared load, and
//     store the patch with store_patch<TM, TN, LANES_M * 4, LANES_N * 4, false>.
//  Predict: the shared-memory wavefronts per load instruction, before and after (bank conflicts).
//
// Step 3, `prefetch_kernel<kVector>`: step 2 with the shared->register prefetch:
//  5. Keep two slots of fragments; while step k's FFMAs run on one, load step k + 1's fragments
//     into the other. At the last k of a tile, store the next tile into the other shared buffer,
//     barrier, and load its step-0 fragments (BK is even, so they land in slot 0).
//  Predict: which stall reason of step 2's profile should shrink, and by how much?
//
// Step 4, `async_wide_gemm_kernel<Tile, kVector, kStages>` (AsyncTile, kAsyncStages: tiles.h): step
// 3 on a 128 x 256 tile fed by cp.async (common/async_copy.cuh) instead of register staging: no
// register holds a tile in flight. kStages stages in dynamic shared memory (extern __shared__),
// each one transposed A tile of BK x (BM + kPadA) floats followed by one B tile of BK x BN floats.
//  6. A goes in through 4-byte copies (transposing on the way), B through 16-byte copies when
//     kVector allows and the 4 columns are inside B (4-byte copies otherwise); a copy of a float
//     outside the matrix writes a zero (the copies' `inside` argument).
//  7. Prologue: start tiles 0 .. kStages - 1 (one commit each, empty ones too), wait for tile 0,
//     barrier, load its first fragments. At the last k of tile t: wait for tile t + 1, barrier,
//     start tile t + kStages in the stage tile t used, load tile t + 1's first fragments.
//  8. The grid is 1-D: take this block's tile from swizzled_tile_origin<Tile> (k_slice.cuh, given),
//     and store C with store_patch's 128-bit stores (kVectorStores true).
//  Predict: a 128-bit LDG and four STS against four 4-byte cp.async for a float4 of A. Which wins?
//
// Optional challenge (its own tests and points): the kernels `best` runs. `best`'s planner and
// launches are given (best_plan.h, launch.cuh, split_k.cuh, k_slice.cuh, stream_k.h; the handout's
// "How a library chooses a kernel"); the variants `wide_*`, `narrow_columns` and `best` run your
// kernels below.
//
// Challenge A, `wide_gemm_kernel<Tile, kVector, kSplit>`: step 3 for any TileShape of BestTiles,
// with everything that is not an FFMA taken out of the loop. Its body is given: a lambda that
// computes tile number `tile` of a GEMM `gemm`; for_each_tile_of_block (k_slice.cuh) calls it with
// this block's work, the whole of K, a slice (split-K) or pieces (stream-K), each a GEMM like any
// other. (Lab 09's sub-pixel kernel reuses this tile loop with another A: its skeleton's "Your warp
// tile" section gives the contract, which you may follow here.)
//  9. Write the tile loop once per shared buffer (a compile-time 0 or 1, e.g. a template lambda or
//     an unrolled pair of iterations), so that every shared address is a base register plus a
//     constant, with no buffer arithmetic in the loop.
// 10. Every tile but the last takes plain loads with no bounds tests (128-bit when kVector, four
//     scalar loads otherwise), edge blocks too: a row of A below C's last row reads the last row
//     instead, a float4 of B right of C's last column the float4 that holds that column (clamp the
//     index; what those rows and columns compute is never stored). The tile that holds K's end
//     takes the checked loads of step 1, and so does the tile that holds B's last row when
//     N % 4 != 0: the float4 holding column N - 1 then reaches past it, which stays inside B for
//     every row but the last. In a GEMM of one wave the slowest block sets the time.
// 11. Take the tile from swizzled_tile_origin<Tile>(gemm.m, gemm.n, tile), and store C four columns
//     at a time where C allows it (store_patch with kVectorStores true).
// 12. Declare the kernel __launch_bounds__(Tile::kThreads, Tile::kMinBlocks) (tiles.h): without the
//     cap the compiler may take registers that cost a block per SM (lab 06 shows what that costs).
//     There must be no spills.
//
// Challenge B, `narrow_gemm_kernel<kCols, kSlicedK>` (the handout's "Off the tile grid"): a C only
// a few columns wide, where any tile computes mostly zeros.
// 13. Warp w of block b computes rows row0 .. row0 + kNarrowRows - 1 of C, row0 =
//     ((b / chunks) * kNarrowWarps + w) * kNarrowRows, over the column chunk col0 = (b % chunks) *
//     kCols (chunks = ceil(N / kCols); tiles.h). Lane l takes k = l, l + 32, ...: each of its loads
//     of A is one float of a row, so a warp's 32 loads are 128 contiguous bytes whatever A's
//     alignment. Multiply each by the kCols values of B's row k (zeros past N), then add the lanes'
//     sums with __shfl_xor_sync and store the rows and columns inside C.
//  Predict: at 40960 x 3 x 1600, how many bytes must be read, and how long does that take at the
//  bandwidth lab 00 measured? What fraction of a 128 x 64 tile's FFMAs are useful?
#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "lab.h"
#include "labs/07_wide_loads/k_slice.cuh"
#include "register_patch.cuh"
#include "tiles.h"

namespace lab07 {
namespace {

// ---- The core: steps 1 to 4 ----

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

template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    prefetch_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = StepTile::BM, BN = StepTile::BN, BK = StepTile::BK;
  constexpr int TM = StepTile::TM, TN = StepTile::TN;
  static_assert(BK % 2 == 0, "the next tile's first fragments land in slot 0");
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
  const int wm0 = (warp / StepTile::WARPS_N) * StepTile::WM,
            wn0 = (warp % StepTile::WARPS_N) * StepTile::WN;
  const int lm = lane / StepTile::LANES_N, ln = lane % StepTile::LANES_N;
  const int row0 = wm0 + lm * 4, col0 = wn0 + ln * 4;  // the lane's first piece
  float ra[2][TM], rb[2][TN];
  // Step k's fragments of buffer `buf` into slot `slot`: one LDS.128 per piece.
  auto load_fragments = [&](int buf, int k, int slot) {
#pragma unroll
    for (int g = 0; g < TM / 4; ++g) {
      const float4 v =
          *reinterpret_cast<const float4*>(&as[buf][k][row0 + g * StepTile::LANES_M * 4]);
      ra[slot][4 * g] = v.x;
      ra[slot][4 * g + 1] = v.y;
      ra[slot][4 * g + 2] = v.z;
      ra[slot][4 * g + 3] = v.w;
    }
#pragma unroll
    for (int h = 0; h < TN / 4; ++h) {
      const float4 v =
          *reinterpret_cast<const float4*>(&bs[buf][k][col0 + h * StepTile::LANES_N * 4]);
      rb[slot][4 * h] = v.x;
      rb[slot][4 * h + 1] = v.y;
      rb[slot][4 * h + 2] = v.z;
      rb[slot][4 * h + 3] = v.w;
    }
  };
  float c[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) c[i][j] = 0.f;
  const int ntiles = (args.k + BK - 1) / BK;
  put(0, fetch(args.a, bm + a_m, a_k, args.m, args.k, args.lda),
      fetch(args.b, b_k, bn + b_n, args.k, args.n, args.ldb));
  __syncthreads();
  load_fragments(0, 0, 0);
  for (int t = 0; t < ntiles; ++t) {
    const int cur = t % 2;
    const bool more = t + 1 < ntiles;
    float4 na = {}, nb = {};
    if (more) {
      const int k0 = (t + 1) * BK;
      na = fetch(args.a, bm + a_m, k0 + a_k, args.m, args.k, args.lda);
      nb = fetch(args.b, k0 + b_k, bn + b_n, args.k, args.n, args.ldb);
    }
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const int slot = k & 1;
      if (k + 1 < BK) {
        load_fragments(cur, k + 1, slot ^ 1);
      } else if (more) {
        // Buffer cur ^ 1 was last read before the barrier of the previous tile.
        put(cur ^ 1, na, nb);
        __syncthreads();
        load_fragments(cur ^ 1, 0, slot ^ 1);
      }
      outer_product<TM, TN>(ra[slot], rb[slot], c);
    }
  }
  store_patch<TM, TN, StepTile::LANES_M * 4, StepTile::LANES_N * 4, false>(args, bm + row0,
                                                                           bn + col0, c);
}

template <class Tile, bool kVector, int kStages>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    async_wide_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, TM = Tile::TM, TN = Tile::TN;
  constexpr int kThreads = Tile::kThreads;
  constexpr int kStageFloats = BK * (BM + kPadA) + BK * BN;
  static_assert(BK % 2 == 0, "the next tile's first fragments land in slot 0");
  extern __shared__ __align__(16) float shared[];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int2 origin = swizzled_tile_origin<Tile>(args.m, args.n, blockIdx.x);
  const int bm = origin.x, bn = origin.y;
  auto a_at = [&](int stage, int k, int m) -> float* {
    return shared + stage * kStageFloats + k * (BM + kPadA) + m;
  };
  auto b_at = [&](int stage, int k, int n) -> float* {
    return shared + stage * kStageFloats + BK * (BM + kPadA) + k * BN + n;
  };
  // Start the copies of tile `tile` into stage `stage`.
  auto start = [&](int tile, int stage) {
    const int k0 = tile * BK;
#pragma unroll
    for (int e = tid; e < BM * BK; e += kThreads) {  // A: 4-byte copies, transposed
      const int m = e / BK, k = e % BK;
      const bool inside = bm + m < args.m && k0 + k < args.k;
      cudalabs::async_copy_4(a_at(stage, k, m),
                             inside ? args.a + (size_t)(bm + m) * args.lda + k0 + k : args.a,
                             inside);
    }
#pragma unroll
    for (int e = tid; e < BK * BN / 4; e += kThreads) {  // B: 16-byte copies where they fit
      const int k = e / (BN / 4), n = (e % (BN / 4)) * 4;
      const int row = k0 + k, col = bn + n;
      if (kVector && row < args.k && col + 3 < args.n) {
        cudalabs::async_copy_16(b_at(stage, k, n), args.b + (size_t)row * args.ldb + col, true);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool inside = row < args.k && col + q < args.n;
          cudalabs::async_copy_4(b_at(stage, k, n + q),
                                 inside ? args.b + (size_t)row * args.ldb + col + q : args.b,
                                 inside);
        }
      }
    }
  };
  const int wm0 = (warp / Tile::WARPS_N) * Tile::WM, wn0 = (warp % Tile::WARPS_N) * Tile::WN;
  const int row0 = wm0 + (lane / Tile::LANES_N) * 4, col0 = wn0 + (lane % Tile::LANES_N) * 4;
  float ra[2][TM], rb[2][TN];
  auto load_fragments = [&](int stage, int k, int slot) {
#pragma unroll
    for (int g = 0; g < TM / 4; ++g) {
      const float4 v =
          *reinterpret_cast<const float4*>(a_at(stage, k, row0 + g * Tile::LANES_M * 4));
      ra[slot][4 * g] = v.x;
      ra[slot][4 * g + 1] = v.y;
      ra[slot][4 * g + 2] = v.z;
      ra[slot][4 * g + 3] = v.w;
    }
#pragma unroll
    for (int h = 0; h < TN / 4; ++h) {
      const float4 v =
          *reinterpret_cast<const float4*>(b_at(stage, k, col0 + h * Tile::LANES_N * 4));
      rb[slot][4 * h] = v.x;
      rb[slot][4 * h + 1] = v.y;
      rb[slot][4 * h + 2] = v.z;
      rb[slot][4 * h + 3] = v.w;
    }
  };
  float c[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) c[i][j] = 0.f;
  const int ntiles = (args.k + BK - 1) / BK;
  for (int s = 0; s < kStages; ++s) {
    if (s < ntiles) start(s, s);
    cudalabs::async_copy_commit();  // one group per stage, empty ones too
  }
  cudalabs::async_copy_wait<kStages - 1>();  // tile 0 has landed
  __syncthreads();
  load_fragments(0, 0, 0);
  for (int t = 0; t < ntiles; ++t) {
    const int stage = t % kStages;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const int slot = k & 1;
      if (k + 1 < BK) {
        load_fragments(stage, k + 1, slot ^ 1);
      } else if (t + 1 < ntiles) {
        cudalabs::async_copy_wait<kStages - 2>();  // tile t + 1 has landed
        __syncthreads();                           // ... for every thread; stage t is read
        if (t + kStages < ntiles) start(t + kStages, stage);
        cudalabs::async_copy_commit();
        load_fragments((t + 1) % kStages, 0, slot ^ 1);
      }
      outer_product<TM, TN>(ra[slot], rb[slot], c);
    }
  }
  cudalabs::async_copy_wait<0>();
  store_patch<TM, TN, Tile::LANES_M * 4, Tile::LANES_N * 4, true>(args, bm + row0, bn + col0, c);
}

// ---- The optional challenge: the kernels `best` runs ----

template <class Tile, bool kVector, KSplit kSplit>
__global__ void wide_gemm_kernel(cudalabs::GemmArgs args) {
  // Given: best's share-out of K (k_slice.cuh) calls the lambda for each tile this block computes.
  // Declare the shared tiles above it, so that every call uses the same ones.
  for_each_tile_of_block<Tile, kSplit>(args, [&](const cudalabs::GemmArgs& gemm, int tile) {
    // TODO(lab07): challenge A, tile number `tile` of gemm, as described above.
    (void)gemm;
    (void)tile;
  });
}

template <int kCols, bool kSlicedK>
__global__ void __launch_bounds__(kNarrowThreads) narrow_gemm_kernel(cudalabs::GemmArgs args) {
  if constexpr (kSlicedK) args = k_slice_of_block(args);  // given: best's split-K (k_slice.cuh)
  // TODO(lab07): challenge B, the narrow kernel described above.
  (void)args;
}

}  // namespace
}  // namespace lab07

#include "launch.cuh"
