// Lab 07 solution: the final SIMT SGEMM.
//
// Starting point: lab 06's double-buffered 128 x 128 x 8 kernel. On Hopper an SM sub-partition
// issues one warp instruction per cycle and its 32 FP32 lanes retire one FFMA warp instruction per
// cycle, so every instruction that is not an FFMA (a load, an address, a branch) takes a cycle from
// the FFMAs. This kernel spends as few as it can on anything else:
//  - 128-bit global loads (LDG.E.128): one instruction brings 4 floats of A or B; A lands
//    transposed in shared memory through 4 scalar stores, B through one 128-bit store
//    ([GEMM-BOOK] §2.2).
//  - Warp tiling: each warp owns a warp tile, and each lane a TM x TN patch made of 4 x 4 pieces
//    spread over it, so that a warp's 128-bit shared loads (LDS.128) touch one contiguous 128-byte
//    row segment (A) or less (B): no bank conflict, and 4 LDS.128 feed 64 FFMAs (8 x 8 patch).
//  - Shared->register prefetch ([GEMM-BOOK] §2.3): the fragments of step k + 1 are loaded while
//    step k's FFMAs run (two register slots), so no FFMA waits for shared memory.
//  - Double-buffered shared memory with a global->register prefetch (lab 06): one barrier per tile.
//  - A block swizzle: blocks walk down groups of kGroupRows block rows, so that the panels of A and
//    B they share are read from L2 rather than DRAM.
//  - The alpha/beta update and the stores of C also go 128 bits at a time.
// The 128-bit loads need A and B 16-byte aligned with lda and ldb multiples of 4; otherwise the
// launcher picks the scalar instantiation (kVector = false), whose interior tiles still skip every
// bounds test. C is stored 128 bits at a time when it allows, checked once at run time. Partial
// tiles at any edge load zeros and store only inside C.
//
// A C only a few columns wide wastes most of any tile: narrow_gemm_kernel streams A instead.
#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "lab.h"
#include "labs/07_wide_loads/k_slice.cuh"
#include "tiles.h"
#include "warp_tile.cuh"

#include <cstdint>

namespace lab07 {
namespace {

// Four consecutive floats of row `row`, columns col .. col + 3, of a rows x cols matrix; zeros
// outside it. One 128-bit load when allowed and entirely inside, scalar loads otherwise.
template <bool kVector>
__device__ __forceinline__ float4 load_four(const float* __restrict__ matrix, int row, int col,
                                            int rows, int cols, int ld) {
  if (kVector && row < rows && col + 3 < cols) {
    return __ldg(reinterpret_cast<const float4*>(matrix + row * ld + col));
  }
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (row < rows) {
    const float* p = matrix + row * ld;
    if (col < cols) v.x = __ldg(p + col);
    if (col + 1 < cols) v.y = __ldg(p + col + 1);
    if (col + 2 < cols) v.z = __ldg(p + col + 2);
    if (col + 3 < cols) v.w = __ldg(p + col + 3);
  }
  return v;
}

// Where tile number `tile` of an m x n C starts: consecutive tiles walk down kGroupRows block rows
// before moving right.
template <class Tile>
__device__ __forceinline__ int2 swizzled_tile_origin(int m, int n, int tile) {
  const int tiles_m = (m + Tile::BM - 1) / Tile::BM, tiles_n = (n + Tile::BN - 1) / Tile::BN;
  const int blocks_per_group = kGroupRows * tiles_n;
  const int first_tile_m = tile / blocks_per_group * kGroupRows;
  const int group_rows = min(tiles_m - first_tile_m, kGroupRows);
  const int in_group = tile % blocks_per_group;
  return make_int2((first_tile_m + in_group % group_rows) * Tile::BM,
                   (in_group / group_rows) * Tile::BN);
}

// Four consecutive floats that lie inside the matrix: one 128-bit load when aligned, else four
// scalar loads, with no bounds tests either way.
template <bool kVector>
__device__ __forceinline__ float4 load_four_inside(const float* __restrict__ p) {
  if (kVector) return __ldg(reinterpret_cast<const float4*>(p));
  return make_float4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3));
}

// C = alpha * acc + beta * C for this lane's pieces, four columns at a time where C allows it
// (16-byte aligned, ldc a multiple of 4: one test for the whole kernel, so a misaligned C costs
// only the stores). kVectorStores = false keeps every store scalar (step 2).
template <class Tile, bool kVectorStores>
__device__ __forceinline__ void store_pieces(const cudalabs::GemmArgs& args, int row0, int col0,
                                             const LanePieces<Tile>& lane,
                                             const float (&acc)[Tile::TM][Tile::TN]) {
  const bool c_vector =
      kVectorStores && reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0 && args.ldc % 4 == 0;
#pragma unroll
  for (int g = 0; g < Tile::TM / 4; ++g) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row = row0 + lane.row + g * Tile::LANES_M * 4 + r;
      if (row >= args.m) continue;
#pragma unroll
      for (int h = 0; h < Tile::TN / 4; ++h) {
        const int col = col0 + lane.col + h * Tile::LANES_N * 4;
        const float* values = &acc[4 * g + r][4 * h];
        float* c = args.c + row * args.ldc + col;
        if (c_vector && col + 3 < args.n) {
          cudalabs::store_gemm_result4(c, make_float4(values[0], values[1], values[2], values[3]),
                                       args.alpha, args.beta);
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            if (col + q < args.n)
              cudalabs::store_gemm_result(c + q, values[q], args.alpha, args.beta);
          }
        }
      }
    }
  }
}

// Steps 1 and 2 of the climb: lab 06's prefetch_regs kernel (128 x 128 x 8, 256 threads, 8 x 8
// outputs per thread, two shared buffers) changed one lesson at a time. Each step's thread stages
// one float4 of A and one of B per tile: A's row tid / 2, columns 4 * (tid % 2) ..; B's row tid /
// 32, columns 4 * (tid % 32) ...
struct StagedFloat4s {
  float4 a, b;
};

template <bool kVector>
__device__ __forceinline__ StagedFloat4s load_step_tile(const cudalabs::GemmArgs& args, int row0,
                                                        int col0, int k0) {
  const int tid = threadIdx.x;
  return {load_four<kVector>(args.a, row0 + tid / 2, k0 + tid % 2 * 4, args.m, args.k, args.lda),
          load_four<kVector>(args.b, k0 + tid / 32, col0 + tid % 32 * 4, args.k, args.n, args.ldb)};
}

// A transposed through four scalar stores (the kPadA floats of padding keep them conflict-free), B
// through one 128-bit store.
__device__ __forceinline__ void store_step_tile(const StagedFloat4s& staged,
                                                float (&a_tile)[StepTile::BK][StepTile::BM + kPadA],
                                                float (&b_tile)[StepTile::BK][StepTile::BN]) {
  const int tid = threadIdx.x, m = tid / 2, k = tid % 2 * 4;
  a_tile[k + 0][m] = staged.a.x;
  a_tile[k + 1][m] = staged.a.y;
  a_tile[k + 2][m] = staged.a.z;
  a_tile[k + 3][m] = staged.a.w;
  *reinterpret_cast<float4*>(&b_tile[tid / 32][tid % 32 * 4]) = staged.b;
}

// Step 1, 128-bit global loads: one LDG.128 instead of four LDG.32 for each 4 floats of A or B. The
// rest is lab 06's kernel: each thread owns the 8 x 8 patch at rows 8 * (tid / 16), columns
// 8 * (tid % 16) of the block tile, and reads its fragments from shared memory one float at a time.
template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    wide_loads_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = StepTile::BM, BN = StepTile::BN, BK = StepTile::BK, TM = 8, TN = 8;
  static_assert(StepTile::kThreads == (BM / TM) * (BN / TN) && BM * BK / 4 == StepTile::kThreads &&
                    BK * BN / 4 == StepTile::kThreads,
                "one float4 of A and one of B per thread per tile");
  __shared__ __align__(16) float a_tile[2][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[2][BK][BN];
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int patch_row = threadIdx.x / (BN / TN) * TM, patch_col = threadIdx.x % (BN / TN) * TN;
  const int tiles = (args.k + BK - 1) / BK;

  float acc[TM][TN] = {};
  store_step_tile(load_step_tile<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    StagedFloat4s next{};
    if (t + 1 < tiles) next = load_step_tile<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a_reg[TM], b_reg[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[buffer][k][patch_row + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[buffer][k][patch_col + j];
      outer_product(a_reg, b_reg, acc);
    }
    if (t + 1 < tiles) store_step_tile(next, a_tile[buffer ^ 1], b_tile[buffer ^ 1]);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = row0 + patch_row + i, col = col0 + patch_col + j;
      if (row < args.m && col < args.n)
        cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc[i][j], args.alpha,
                                    args.beta);
    }
}

// Step 2, warp tiling: the same loads and stores, but each lane owns 4 x 4 pieces spread over its
// warp's tile (LanePieces, warp_tile.cuh), so that each fragment comes in with conflict-free
// LDS.128 instead of scalar loads with bank conflicts. No prefetch yet: each step's FFMAs wait for
// its fragments.
template <bool kVector>
__global__ void __launch_bounds__(StepTile::kThreads, StepTile::kMinBlocks)
    warp_tiles_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = StepTile::BM, BN = StepTile::BN, BK = StepTile::BK;
  __shared__ __align__(16) float a_tile[2][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[2][BK][BN];
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const LanePieces<StepTile> lane;
  const int tiles = (args.k + BK - 1) / BK;

  float acc[StepTile::TM][StepTile::TN] = {};
  store_step_tile(load_step_tile<kVector>(args, row0, col0, 0), a_tile[0], b_tile[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    StagedFloat4s next{};
    if (t + 1 < tiles) next = load_step_tile<kVector>(args, row0, col0, (t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a_frag[StepTile::TM], b_frag[StepTile::TN];
      load_fragments<StepTile>(a_tile[buffer][k], b_tile[buffer][k], lane, a_frag, b_frag);
      outer_product(a_frag, b_frag, acc);
    }
    if (t + 1 < tiles) store_step_tile(next, a_tile[buffer ^ 1], b_tile[buffer ^ 1]);
    __syncthreads();
  }
  store_pieces<StepTile, false>(args, row0, col0, lane, acc);
}

// The register-staged kernel: global -> registers -> shared, two shared buffers. Its state lives in
// this object so that the tile loop (warp_tile.cuh, shared with lab 09) can be written once per
// shared buffer (kBuffer a compile-time 0 or 1): every shared-memory address is then a base
// register plus a constant, and the loop carries no buffer arithmetic or per-tile branches
// (measured: 4 % of the issue slots on the H100). The block loads its tiles; the loop stores and
// multiplies them.
template <class Tile, bool kVector>
struct RegisterStagedBlock {
  static constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, TM = Tile::TM, TN = Tile::TN;
  static constexpr int kThreads = Tile::kThreads;
  static constexpr int kAVectors = BM * BK / 4 / kThreads;  // float4 loads of A per thread per tile
  static constexpr int kBVectors = BK * BN / 4 / kThreads;
  static_assert(BK % 2 == 0, "the fragment slots alternate, so BK must be even");

  using ATile = float[BK][BM + kPadA];  // A transposed: a_tile[k][m]
  using BTile = float[BK][BN];

  const cudalabs::GemmArgs& args;
  ATile* a_tile;  // two buffers
  BTile* b_tile;
  int row0, col0, tid;
  LanePieces<Tile> lane;
  // Every tile but the last takes plain loads (128-bit when kVector) with no bounds tests, edge
  // blocks included: a row of A below C's last row reads the last row instead, and a float4 of B
  // right of C's last column reads the float4 that holds that column (clamped, not tested). What
  // they compute is never stored. In a GEMM of one wave the slowest block sets the time: edge
  // blocks that tested every load made 1000^3 take 18 % longer than 1024^3 (the same blocks). When
  // N % 4 != 0 that float4 reaches up to 3 floats past column N - 1, into the row's padding or the
  // next row: inside B for every row but the last, so the tile that holds B's last row takes the
  // tested loads (the tile past K's end does anyway).
  int unchecked_k_end;  // tiles ending at or before this k take the plain loads
  int next_k0 = 0;      // the column of A (row of B) where the next tile starts
  float4 a_staged[kAVectors], b_staged[kBVectors];
  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];

  __device__ RegisterStagedBlock(const cudalabs::GemmArgs& gemm, ATile* a, BTile* b, int2 origin)
      : args(gemm), a_tile(a), b_tile(b), row0(origin.x), col0(origin.y), tid(threadIdx.x) {
    unchecked_k_end = args.n % 4 == 0 ? args.k : args.k - 1;
  }

  __device__ __forceinline__ void load_tile(int k0) {
    if (k0 + BK <= unchecked_k_end) {
#pragma unroll
      for (int r = 0; r < kAVectors; ++r) {
        const int v = tid + r * kThreads;
        const int row = min(row0 + v / (BK / 4), args.m - 1);
        a_staged[r] = load_four_inside<kVector>(args.a + row * args.lda + k0 + v % (BK / 4) * 4);
      }
#pragma unroll
      for (int r = 0; r < kBVectors; ++r) {
        const int v = tid + r * kThreads;
        const int column = min(col0 + v % (BN / 4) * 4, (args.n - 1) / 4 * 4);
        b_staged[r] = load_four_inside<kVector>(args.b + (k0 + v / (BN / 4)) * args.ldb + column);
      }
      return;
    }
#pragma unroll
    for (int r = 0; r < kAVectors; ++r) {
      const int v = tid + r * kThreads;
      a_staged[r] = load_four<kVector>(args.a, row0 + v / (BK / 4), k0 + v % (BK / 4) * 4, args.m,
                                       args.k, args.lda);
    }
#pragma unroll
    for (int r = 0; r < kBVectors; ++r) {
      const int v = tid + r * kThreads;
      b_staged[r] = load_four<kVector>(args.b, k0 + v / (BN / 4), col0 + v % (BN / 4) * 4, args.k,
                                       args.n, args.ldb);
    }
  }

  // The next tile along K, for the shared tile loop (warp_tile.cuh).
  __device__ __forceinline__ void load_next_tile() {
    load_tile(next_k0);
    next_k0 += BK;
  }

  __device__ __forceinline__ void run() {
    multiply_staged_tiles<Tile>(*this, (args.k + BK - 1) / BK);
    store_pieces<Tile, true>(args, row0, col0, lane, acc);
  }
};

template <class Tile, bool kVector, KSplit kSplit>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    wide_gemm_kernel(cudalabs::GemmArgs args) {
  using Block = RegisterStagedBlock<Tile, kVector>;
  __shared__ __align__(16) typename Block::ATile a_tile[2];
  __shared__ __align__(16) typename Block::BTile b_tile[2];
  // best's share-out of K (k_slice.cuh): this block's tile, or its pieces of tiles under stream-K.
  for_each_tile_of_block<Tile, kSplit>(args, [&](const cudalabs::GemmArgs& gemm, int tile) {
    Block block(gemm, a_tile, b_tile, swizzled_tile_origin<Tile>(gemm.m, gemm.n, tile));
    block.run();
  });
}

// The cp.async kernel (compute capability 8.0+; a plain copy elsewhere): global -> shared directly,
// kStages tiles deep, in dynamic shared memory. A lands transposed through 4-byte copies; B through
// 16-byte copies when kVector allows. No registers hold tiles in flight, which frees them for the
// accumulators.
template <class Tile, bool kVector, int kStages>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    async_wide_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, TM = Tile::TM, TN = Tile::TN;
  constexpr int kThreads = Tile::kThreads;
  constexpr int kAVectors = BM * BK / 4 / kThreads;
  constexpr int kBVectors = BK * BN / 4 / kThreads;
  constexpr int kAStride = BM + kPadA;
  constexpr int kStageFloats = BK * kAStride + BK * BN;
  static_assert(BK % 2 == 0, "the fragment slots alternate, so BK must be even");

  extern __shared__ float4 shared_storage[];
  float* const shared = reinterpret_cast<float*>(shared_storage);
  auto a_stage = [&](int stage) { return shared + stage * kStageFloats; };  // [BK][kAStride]
  auto b_stage = [&](int stage) {
    return shared + stage * kStageFloats + BK * kAStride;
  };  // [BK][BN]

  const int2 origin = swizzled_tile_origin<Tile>(args.m, args.n, static_cast<int>(blockIdx.x));
  const int row0 = origin.x, col0 = origin.y, tid = threadIdx.x;
  const LanePieces<Tile> lane;
  const int tiles = (args.k + BK - 1) / BK;

  // Starts the copies of tile t (if it exists) into stage t % kStages and commits them as one
  // group.
  auto start_tile = [&](int t) {
    if (t < tiles) {
      float* a_dst = a_stage(t % kStages);
      float* b_dst = b_stage(t % kStages);
      const int k0 = t * BK;
#pragma unroll
      for (int r = 0; r < kAVectors; ++r) {
        const int v = tid + r * kThreads;
        const int m = v / (BK / 4), k = v % (BK / 4) * 4;
        const int row = row0 + m;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool inside = row < args.m && k0 + k + q < args.k;
          cudalabs::async_copy_4(a_dst + (k + q) * kAStride + m,
                                 inside ? args.a + row * args.lda + k0 + k + q : args.a, inside);
        }
      }
#pragma unroll
      for (int r = 0; r < kBVectors; ++r) {
        const int v = tid + r * kThreads;
        const int k = v / (BN / 4), n = v % (BN / 4) * 4;
        const int row = k0 + k, col = col0 + n;
        float* dst = b_dst + k * BN + n;
        if (kVector && row < args.k && col + 3 < args.n) {
          cudalabs::async_copy_16(dst, args.b + row * args.ldb + col, true);
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const bool inside = row < args.k && col + q < args.n;
            cudalabs::async_copy_4(dst + q, inside ? args.b + row * args.ldb + col + q : args.b,
                                   inside);
          }
        }
      }
    }
    cudalabs::async_copy_commit();
  };

  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];
#pragma unroll
  for (int t = 0; t < kStages; ++t) start_tile(t);
  cudalabs::async_copy_wait<kStages - 1>();  // tile 0 has landed
  __syncthreads();
  load_fragments<Tile>(a_stage(0), b_stage(0), lane, a_frag[0], b_frag[0]);
  for (int t = 0; t < tiles; ++t) {
    const int stage = t % kStages;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const int slot = k & 1;
      if (k + 1 < BK) {
        load_fragments<Tile>(a_stage(stage) + (k + 1) * kAStride, b_stage(stage) + (k + 1) * BN,
                             lane, a_frag[slot ^ 1], b_frag[slot ^ 1]);
      } else {
        // Tile t + 1 has landed for this thread; after the barrier, for everyone, and nobody reads
        // stage t % kStages any more, so it is refilled with tile t + kStages.
        cudalabs::async_copy_wait<kStages - 2>();
        __syncthreads();
        start_tile(t + kStages);
        if (t + 1 < tiles) {
          const int next = (t + 1) % kStages;
          load_fragments<Tile>(a_stage(next), b_stage(next), lane, a_frag[slot ^ 1],
                               b_frag[slot ^ 1]);
        }
      }
      outer_product(a_frag[slot], b_frag[slot], acc);
    }
  }
  store_pieces<Tile, true>(args, row0, col0, lane, acc);
}

// A C of a few columns (N <= 16: the DCGAN's RGB layer has 3): a tile of 64 or more columns would
// compute zeros in all but N of them, and the product is a matrix-vector product in disguise, bound
// by reading A once (2 N FLOPs per 4 bytes). So each warp streams kNarrowRows rows of A, its lanes
// on consecutive k (every load a contiguous 128 bytes, any alignment), multiplies each element by
// the kCols values of B's row k (read through L1, where B stays), and the lanes' partial sums meet
// through shuffles. Block b covers rows (b / chunks) * kNarrowWarps * kNarrowRows .. and the column
// chunk b % chunks.
template <int kCols, bool kSlicedK>
__global__ void __launch_bounds__(kNarrowThreads) narrow_gemm_kernel(cudalabs::GemmArgs args) {
  if constexpr (kSlicedK) args = k_slice_of_block(args);  // best's split-K (k_slice.cuh)
  const int chunks = (args.n + kCols - 1) / kCols;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = (static_cast<int>(blockIdx.x) / chunks * kNarrowWarps + warp) * kNarrowRows;
  const int col0 = static_cast<int>(blockIdx.x) % chunks * kCols;
  if (row0 >= args.m) return;  // no barrier below: a warp may leave alone
  const int rows = min(kNarrowRows, args.m - row0), cols = min(kCols, args.n - col0);
  const float* a = args.a + row0 * args.lda;
  const float* b = args.b + col0;

  // [narrow]
  float acc[kNarrowRows][kCols] = {};
#pragma unroll 4
  for (int k = lane; k < args.k; k += 32) {
    float b_row[kCols];
#pragma unroll
    for (int c = 0; c < kCols; ++c) b_row[c] = c < cols ? __ldg(b + k * args.ldb + c) : 0.0f;
#pragma unroll
    for (int r = 0; r < kNarrowRows; ++r) {
      const float a_value = r < rows ? __ldg(a + r * args.lda + k) : 0.0f;
#pragma unroll
      for (int c = 0; c < kCols; ++c) acc[r][c] = fmaf(a_value, b_row[c], acc[r][c]);
    }
  }
  // Every lane ends with every sum; lane (r * kCols + c) % 32 stores element (r, c).
#pragma unroll
  for (int r = 0; r < kNarrowRows; ++r) {
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      float sum = acc[r][c];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
      if ((r * kCols + c) % 32 == lane && r < rows && c < cols)
        cudalabs::store_gemm_result(args.c + (row0 + r) * args.ldc + col0 + c, sum, args.alpha,
                                    args.beta);
    }
  }
  // [narrow]
}

}  // namespace
}  // namespace lab07

#include "launch.cuh"
