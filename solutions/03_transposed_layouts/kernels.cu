// Lab 03 solution: the tiled GEMM with each shared tile stored either as in global memory (R) or
// transposed (C), as in [SGEMM-3080].
//
// Mapping ([SGEMM-3080]'s): thread (tx, ty) of a 16 x 16 block owns C(row0 + tx, col0 + ty), so a
// warp (32 threads) is tx = 0..15 for two consecutive ty. Shared memory has 32 four-byte banks;
// address a lives in bank a % 32. In the inner loop, step p:
//  - A(tx, p) from a_tile[tx][p] (R) sits at 16 tx + p: 16 different addresses, even tx in one bank
//    and odd tx in another, an 8-way conflict on every step. From a_tile[p][tx] (C) it sits at
//    16 p + tx: 16 consecutive banks, conflict-free.
//  - B(p, ty) from b_tile[p][ty] (R) or b_tile[ty][p] (C): the warp reads only two addresses (two
//    ty), in different banks either way, so B's layout hardly matters for the loads.
//  - The stores that fill the tiles: a_tile[tx][ty] (R) is 8-way conflicted, a_tile[ty][tx] (C) is
//    not; the same holds for B. They happen once per 16 inner steps.
// Prediction: RR ~ RC (A loads conflicted) and CR ~ CC (A loads clean), CC a little ahead of CR
// (clean stores for B as well). [SGEMM-3080] measured RR 1558 ms, RC 1542, CR 829, CC 789 at 8192
// on an RTX 3080.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab03 {
namespace {

// The element (r, c) of a tile stored as given (R) or transposed (C).
template <bool kTransposed>
__device__ __forceinline__ float& tile_at(float (&tile)[kTile][kTile], int r, int c) {
  return kTransposed ? tile[c][r] : tile[r][c];
}

// [walkthrough]
template <bool kTransposeA, bool kTransposeB>
__global__ void layout_gemm_kernel(cudalabs::GemmArgs args) {
  __shared__ float a_tile[kTile][kTile];  // logical element (row, k) of the A tile
  __shared__ float b_tile[kTile][kTile];  // logical element (k, col) of the B tile
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.x * kTile + tx;
  const int col = blockIdx.y * kTile + ty;

  float acc = 0.0f;
  for (int k0 = 0; k0 < args.k; k0 += kTile) {
    const int a_col = k0 + ty, b_row = k0 + tx;
    tile_at<kTransposeA>(a_tile, tx, ty) =
        (row < args.m && a_col < args.k) ? args.a[row * args.lda + a_col] : 0.0f;
    tile_at<kTransposeB>(b_tile, tx, ty) =
        (b_row < args.k && col < args.n) ? args.b[b_row * args.ldb + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kTile; ++p)
      acc += tile_at<kTransposeA>(a_tile, tx, p) * tile_at<kTransposeB>(b_tile, p, ty);
    __syncthreads();
  }
  if (row < args.m && col < args.n) {
    cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);
  }
}
// [walkthrough]

}  // namespace
}  // namespace lab03

#include "launch.cuh"
