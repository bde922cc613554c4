// Lab 06: double buffering. YOUR KERNELS GO HERE.
//
// Start from your lab 05 2-D kernel (128 x 128 x 8 tiles, 8 x 8 outputs per thread, A transposed in
// shared memory). Its threads load a tile, wait at a barrier, compute, wait again: while they load,
// nothing computes, and while they compute, no load is in flight.
//
// prefetch_gemm_kernel: two shared buffers, a_tile[2][BK][BM + kPadA] and b_tile[2][BK][BN].
//   prologue: load tile 0 into buffer 0, __syncthreads()
//   for each tile t: if there is a tile t + 1, load its elements from global memory into registers
//     (they arrive while you compute); compute tile t from buffer t % 2; write the registers into
//     buffer (t + 1) % 2; __syncthreads(). One barrier per tile: why is that enough?
//
// async_gemm_kernel: kAsyncStages shared buffers filled with cudalabs::async_copy_4
// (common/async_copy.cuh):
//   prologue: start copies of tiles 0 .. kAsyncStages - 2, committing one group per tile
//   for each tile t: async_copy_wait<kAsyncStages - 2>(); __syncthreads(); start the copies of
//     tile t + kAsyncStages - 1 into the buffer tile t - 1 used, commit (even when empty); compute
//     tile t.
// Zero-fill elements outside A and B (valid = false), and store only inside C.
#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab06 {
namespace {

// One 8 x 8 (TM x TN) outer-product step per k of a staged tile, as in lab 05.
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
      for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
  }
}

template <int TM, int TN>
__device__ __forceinline__ void store_patch(const cudalabs::GemmArgs& args, int row, int col,
                                            const float (&acc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      if (row + i < args.m && col + j < args.n)
        cudalabs::store_gemm_result(&args.c[(row + i) * args.ldc + col + j], acc[i][j], args.alpha,
                                    args.beta);
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    prefetch_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int kAPerThread = BM * BK / kThreads;
  constexpr int kBPerThread = BK * BN / kThreads;
  static_assert(BM * BK % kThreads == 0 && BK * BN % kThreads == 0, "whole loads per thread");
  __shared__ __align__(16) float a_tile[2][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[2][BK][BN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int patch_row = (tid / (BN / TN)) * TM, patch_col = (tid % (BN / TN)) * TN;
  const int tiles = (args.k + BK - 1) / BK;
  float a_next[kAPerThread], b_next[kBPerThread];
  auto load = [&](int tile) {  // global -> registers
#pragma unroll
    for (int i = 0; i < kAPerThread; ++i) {
      const int e = tid + i * kThreads, r = row0 + e / BK, c = tile * BK + e % BK;
      a_next[i] = (r < args.m && c < args.k) ? args.a[r * args.lda + c] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kBPerThread; ++i) {
      const int e = tid + i * kThreads, r = tile * BK + e / BN, c = col0 + e % BN;
      b_next[i] = (r < args.k && c < args.n) ? args.b[r * args.ldb + c] : 0.0f;
    }
  };
  auto store = [&](int buffer) {  // registers -> shared, A transposed
#pragma unroll
    for (int i = 0; i < kAPerThread; ++i) {
      const int e = tid + i * kThreads;
      a_tile[buffer][e % BK][e / BK] = a_next[i];
    }
#pragma unroll
    for (int i = 0; i < kBPerThread; ++i) {
      const int e = tid + i * kThreads;
      b_tile[buffer][e / BN][e % BN] = b_next[i];
    }
  };
  float acc[TM][TN] = {};
  load(0);
  store(0);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const bool more = t + 1 < tiles;
    if (more) load(t + 1);  // in flight during the FFMAs below
    multiply_tile<BM, BN, BK, TM, TN>(a_tile[t % 2], b_tile[t % 2], patch_row, patch_col, acc);
    // Buffer (t + 1) % 2 was last read in step t - 1, before the previous barrier.
    if (more) store((t + 1) % 2);
    __syncthreads();
  }
  store_patch<TM, TN>(args, row0 + patch_row, col0 + patch_col, acc);
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    async_gemm_kernel(cudalabs::GemmArgs args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int kStages = kAsyncStages;
  __shared__ __align__(16) float a_tile[kStages][BK][BM + kPadA];
  __shared__ __align__(16) float b_tile[kStages][BK][BN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int patch_row = (tid / (BN / TN)) * TM, patch_col = (tid % (BN / TN)) * TN;
  const int tiles = (args.k + BK - 1) / BK;
  auto start_copies = [&](int tile, int stage) {
    for (int e = tid; e < BM * BK; e += kThreads) {
      const int r = row0 + e / BK, c = tile * BK + e % BK;
      const bool valid = r < args.m && c < args.k;
      cudalabs::async_copy_4(&a_tile[stage][e % BK][e / BK],
                             valid ? args.a + r * args.lda + c : args.a, valid);
    }
    for (int e = tid; e < BK * BN; e += kThreads) {
      const int r = tile * BK + e / BN, c = col0 + e % BN;
      const bool valid = r < args.k && c < args.n;
      cudalabs::async_copy_4(&b_tile[stage][e / BN][e % BN],
                             valid ? args.b + r * args.ldb + c : args.b, valid);
    }
  };
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) start_copies(s, s);
    cudalabs::async_copy_commit();  // one group per stage, even an empty one
  }
  float acc[TM][TN] = {};
  for (int t = 0; t < tiles; ++t) {
    cudalabs::async_copy_wait<kStages - 2>();  // tile t's group has landed (for this thread)
    __syncthreads();                           // ... and for every thread; t - 1 is done with
    const int next = t + kStages - 1;
    if (next < tiles) start_copies(next, next % kStages);
    cudalabs::async_copy_commit();
    multiply_tile<BM, BN, BK, TM, TN>(a_tile[t % kStages], b_tile[t % kStages], patch_row,
                                      patch_col, acc);
  }
  cudalabs::async_copy_wait<0>();
  store_patch<TM, TN>(args, row0 + patch_row, col0 + patch_col, acc);
}

}  // namespace
}  // namespace lab06

#include "launch.cuh"
