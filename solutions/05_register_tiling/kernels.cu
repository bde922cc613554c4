// Lab 05 solution: register tiling.
//
// Idea: in lab 02 every fused multiply-add needed two shared-memory loads (one A, one B value). An
// FFMA cannot take both operands from shared memory, so each product costs an LDS for each operand
// plus the FFMA: the loads, not the arithmetic, fill the issue slots. Holding operands in registers
// fixes that ([DCGAN-SHPC] §2.3.2 makes the same point for its T x TV kernel):
//  - 1-D (TM x 1): per step along K a thread loads TM values of A and one of B, and the B value
//    serves TM products: TM FFMAs per TM + 1 loads.
//  - 2-D (TM x TN): it loads TM values of A and TN of B and does their TM x TN outer product:
//    64 FFMAs per 16 loads for 8 x 8, and the loads of 4 consecutive floats become single 128-bit
//    LDS instructions.
// The A tile is stored transposed, a_tile[k][m], so that a thread's TM values of A for one k are
// consecutive in shared memory (vectorisable), just like its TN values of B. Its rows are padded by
// kPadA floats so that the transposing stores of a warp spread over all banks.
// Expect about 4x lab 02's tiled kernel for the 2-D variant; registers per thread rise to ~100.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab05 {
namespace {

// [walkthrough]
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    register_tiled_kernel(cudalabs::GemmArgs args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int kThreadCols = BN / TN;
  static_assert((BM * BK) % kThreads == 0 && (BK * BN) % kThreads == 0,
                "tiles must split evenly over threads");

  __shared__ __align__(16) float a_tile[BK][BM + kPadA];  // A transposed: a_tile[k][m]
  __shared__ __align__(16) float b_tile[BK][BN];

  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int patch_row = (tid / kThreadCols) * TM;  // first row of this thread's patch in the tile
  const int patch_col = (tid % kThreadCols) * TN;

  float acc[TM][TN] = {};
  float a_reg[TM], b_reg[TN];
  for (int k0 = 0; k0 < args.k; k0 += BK) {
    // Consecutive threads take consecutive k of one row of A (a 32-byte run per row) and
    // consecutive columns of B (fully coalesced).
#pragma unroll
    for (int r = 0; r < (BM * BK) / kThreads; ++r) {
      const int i = tid + r * kThreads;
      const int m = i / BK, k = i % BK;
      const int row = row0 + m, col = k0 + k;
      a_tile[k][m] = (row < args.m && col < args.k) ? args.a[row * args.lda + col] : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < (BK * BN) / kThreads; ++r) {
      const int i = tid + r * kThreads;
      const int k = i / BN, n = i % BN;
      const int row = k0 + k, col = col0 + n;
      b_tile[k][n] = (row < args.k && col < args.n) ? args.b[row * args.ldb + col] : 0.0f;
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
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_reg[i], b_reg[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + patch_row + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = col0 + patch_col + j;
      if (row < args.m && col < args.n) {
        cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc[i][j], args.alpha,
                                    args.beta);
      }
    }
  }
}
// [walkthrough]

}  // namespace
}  // namespace lab05

#include "launch.cuh"
