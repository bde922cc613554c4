// Lab 06 solution: double buffering, two ways.
//
// Idea: lab 05's loop alternates between loading a tile (the block waits for DRAM) and computing it
// (no load is in flight). Double buffering overlaps the two: while the block computes tile t from
// one shared buffer, the loads of tile t + 1 are already on their way to the other ([GEMM-BOOK]
// §2.1).
//  - prefetch_regs: the loads of tile t + 1 are issued into registers at the top of step t; the
//    FFMAs of tile t run while they are in flight; only then are the registers stored to the other
//    buffer. The buffer being written was last read in step t - 1, before the barrier that closed
//    it, so one barrier per step suffices (lab 05 needed two).
//  - cp_async (sm_80+): cp.async copies global memory straight into shared memory without passing
//    through registers and without blocking the thread; with 3 stages, two tiles are in flight
//    while one is computed. Each element is copied on its own (4 bytes), which lets A land
//    transposed.
// Tiles: 128 x 128 x 8, 256 threads, 8 x 8 outputs per thread, A transposed in shared memory.
// Both kernels are capped at 128 registers (__launch_bounds__(256, 2)): the prefetch registers
// would otherwise push the kernel past 128, and one block per SM instead of two halves the warps
// that hide latency (measured on the H100: 44 % of cuBLAS uncapped). Expect the prefetch to hide
// most of the load latency that lab 05's barriers exposed.
#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab06 {
namespace {

// The outer products of one shared tile: for each k, the thread's TM values of A and TN values of B
// go to registers and meet in TM x TN FFMAs.
template <int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void multiply_tile(const float (&a_tile)[BK][BM + kPadA],
                                              const float (&b_tile)[BK][BN], int patch_row,
                                              int patch_col, float (&acc)[TM][TN]) {
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    float a_reg[TM], b_reg[TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[k][patch_row + i];
#pragma unroll
    for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[k][patch_col + j];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_reg[i], b_reg[j], acc[i][j]);
  }
}

template <int TM, int TN>
__device__ __forceinline__ void store_patch(const cudalabs::GemmArgs& args, int row0, int col0,
                                            const float (&acc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = row0 + i, col = col0 + j;
      if (row < args.m && col < args.n) {
        cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc[i][j], args.alpha,
                                    args.beta);
      }
    }
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    prefetch_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int kALoads = BM * BK / kThreads, kBLoads = BK * BN / kThreads;
  __shared__ __align__(16) float a_tile[2][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[2][BK][BN];

  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int patch_row = (tid / (BN / TN)) * TM, patch_col = (tid % (BN / TN)) * TN;
  float a_next[kALoads], b_next[kBLoads];

  auto load_tile = [&](int k0) {
#pragma unroll
    for (int r = 0; r < kALoads; ++r) {
      const int i = tid + r * kThreads, m = i / BK, k = i % BK;
      const int row = row0 + m, col = k0 + k;
      a_next[r] = (row < args.m && col < args.k) ? args.a[row * args.lda + col] : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < kBLoads; ++r) {
      const int i = tid + r * kThreads, k = i / BN, n = i % BN;
      const int row = k0 + k, col = col0 + n;
      b_next[r] = (row < args.k && col < args.n) ? args.b[row * args.ldb + col] : 0.0f;
    }
  };
  auto store_tile = [&](int buffer) {
#pragma unroll
    for (int r = 0; r < kALoads; ++r) {
      const int i = tid + r * kThreads;
      a_tile[buffer][i % BK][i / BK] = a_next[r];
    }
#pragma unroll
    for (int r = 0; r < kBLoads; ++r) {
      const int i = tid + r * kThreads;
      b_tile[buffer][i / BN][i % BN] = b_next[r];
    }
  };

  float acc[TM][TN] = {};
  const int tiles = (args.k + BK - 1) / BK;
  load_tile(0);
  store_tile(0);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buffer = t & 1;
    if (t + 1 < tiles) load_tile((t + 1) * BK);  // in flight during the FFMAs below
    multiply_tile<BM, BN, BK, TM, TN>(a_tile[buffer], b_tile[buffer], patch_row, patch_col, acc);
    if (t + 1 < tiles) store_tile(buffer ^ 1);
    __syncthreads();
  }
  store_patch<TM, TN>(args, row0 + patch_row, col0 + patch_col, acc);
}

// [walkthrough]
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    async_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int kALoads = BM * BK / kThreads, kBLoads = BK * BN / kThreads;
  constexpr int kStages = kAsyncStages;
  __shared__ __align__(16) float a_tile[kStages][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[kStages][BK][BN];

  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int patch_row = (tid / (BN / TN)) * TM, patch_col = (tid % (BN / TN)) * TN;
  const int tiles = (args.k + BK - 1) / BK;

  // Starts the copies of tile t into stage t % kStages (none past the last tile) and commits them
  // as one group, so that every step waits for the same number of groups.
  auto start_tile = [&](int t) {
    if (t < tiles) {
      const int stage = t % kStages, k0 = t * BK;
#pragma unroll
      for (int r = 0; r < kALoads; ++r) {
        const int i = tid + r * kThreads, m = i / BK, k = i % BK;
        const int row = row0 + m, col = k0 + k;
        const bool inside = row < args.m && col < args.k;
        cudalabs::async_copy_4(&a_tile[stage][k][m],
                               inside ? args.a + row * args.lda + col : args.a, inside);
      }
#pragma unroll
      for (int r = 0; r < kBLoads; ++r) {
        const int i = tid + r * kThreads, k = i / BN, n = i % BN;
        const int row = k0 + k, col = col0 + n;
        const bool inside = row < args.k && col < args.n;
        cudalabs::async_copy_4(&b_tile[stage][k][n],
                               inside ? args.b + row * args.ldb + col : args.b, inside);
      }
    }
    cudalabs::async_copy_commit();
  };

  float acc[TM][TN] = {};
#pragma unroll
  for (int t = 0; t < kStages - 1; ++t) start_tile(t);
  for (int t = 0; t < tiles; ++t) {
    cudalabs::async_copy_wait<kStages - 2>();  // this thread's copies of tile t have landed
    __syncthreads();  // everyone's have, and everyone is done with the stage refilled next
    start_tile(t + kStages - 1);
    const int stage = t % kStages;
    multiply_tile<BM, BN, BK, TM, TN>(a_tile[stage], b_tile[stage], patch_row, patch_col, acc);
  }
  store_patch<TM, TN>(args, row0 + patch_row, col0 + patch_col, acc);
}
// [walkthrough]

}  // namespace
}  // namespace lab06

#include "launch.cuh"
