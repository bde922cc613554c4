// Lab 05: register tiling. YOUR KERNEL GOES HERE.
//
// Write `register_tiled_kernel<BM, BN, BK, TM, TN>`. A block of (BM/TM) x (BN/TN) threads computes
// a BM x BN tile of C; thread t owns the TM x TN patch at rows (t / (BN/TN)) * TM .. + TM - 1 and
// columns (t % (BN/TN)) * TN .. + TN - 1 of the tile, accumulated in a register array acc[TM][TN].
// Per step of BK along K:
//  1. The block stages the BM x BK tile of A TRANSPOSED, a_tile[k][m] (rows padded by kPadA), and
//  the
//     BK x BN tile of B as b_tile[k][n]; the threads share the loads with a strided loop over the
//     tile's elements. Elements outside A or B are 0. Then __syncthreads().
//  2. For each k < BK: copy the thread's TM values a_tile[k][...] and TN values b_tile[k][...] into
//     register arrays, then acc[i][j] += a[i] * b[j] for all i, j. Fully unroll these loops
//     (#pragma unroll): register arrays must only be indexed with compile-time constants.
//  3. __syncthreads() before the next tile overwrites shared memory.
// Finally store the patch (only the elements inside C) with cudalabs::store_gemm_result.
// With TN = 1 this is the 1-D variant: one B value in a register serves TM products.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab05 {
namespace {

template <int BM, int BN, int BK, int TM, int TN>
__global__ void register_tiled_kernel(cudalabs::GemmArgs args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float a_tile[BK][BM + kPadA];  // transposed: a_tile[k][m]
  __shared__ __align__(16) float b_tile[BK][BN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int patch_row = (tid / (BN / TN)) * TM;  // within the tile
  const int patch_col = (tid % (BN / TN)) * TN;
  float acc[TM][TN] = {};
  float a_reg[TM], b_reg[TN];
  for (int k0 = 0; k0 < args.k; k0 += BK) {
    for (int e = tid; e < BM * BK; e += kThreads) {
      const int m = e / BK, k = e % BK;
      const int r = row0 + m, c = k0 + k;
      a_tile[k][m] = (r < args.m && c < args.k) ? args.a[r * args.lda + c] : 0.0f;
    }
    for (int e = tid; e < BK * BN; e += kThreads) {
      const int k = e / BN, n = e % BN;
      const int r = k0 + k, c = col0 + n;
      b_tile[k][n] = (r < args.k && c < args.n) ? args.b[r * args.ldb + c] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[k][patch_row + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[k][patch_col + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = row0 + patch_row + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int c = col0 + patch_col + j;
      if (r < args.m && c < args.n)
        cudalabs::store_gemm_result(&args.c[r * args.ldc + c], acc[i][j], args.alpha, args.beta);
    }
  }
}

}  // namespace
}  // namespace lab05

#include "launch.cuh"
