// Lab 02 solution: shared-memory tiling, with and without padding.
//
// Idea: a block computes a 32 x 32 tile of C. Instead of every thread reading its own row of A and
// column of B from global memory (lab 01), the block stages a 32 x 32 tile of A and one of B in
// shared memory, one element per thread, and each thread then reads 32 values of each from there.
// Every global element is now fetched once per block instead of once per thread: 32x less global
// traffic.
//
// Shared memory has 32 banks of 4 bytes; a warp's accesses to different addresses in one bank are
// serialised. With threadIdx.x walking the rows of the tile (kThreadXWalksRows, [SGEMM-V100]'s
// mapping), a warp touches a_tile[lane][p]: 32 addresses 32 floats apart, all in one bank, a 32-way
// conflict on every load (and on the stores that fill the tiles). Padding each row by one float
// moves row r's element to bank (r + p) % 32: the same accesses then hit 32 different banks. With
// threadIdx.x walking the columns, a warp reads a_tile[row][p] (one address, a broadcast) and
// b_tile[p][lane] (32 consecutive banks): no conflict without any padding, and the global loads are
// coalesced too.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab02 {
namespace {

// [walkthrough]
template <bool kThreadXWalksRows, int kPadding>
__global__ void tiled_gemm_kernel(cudalabs::GemmArgs args) {
  __shared__ float a_tile[kTile][kTile + kPadding];
  __shared__ float b_tile[kTile][kTile + kPadding];

  const int local_row = kThreadXWalksRows ? threadIdx.x : threadIdx.y;
  const int local_col = kThreadXWalksRows ? threadIdx.y : threadIdx.x;
  const int row = blockIdx.y * kTile + local_row;
  const int col = blockIdx.x * kTile + local_col;

  float acc = 0.0f;
  for (int k0 = 0; k0 < args.k; k0 += kTile) {
    // Out-of-range elements load as 0, so the partial last tile adds nothing and needs no special
    // case.
    const int a_col = k0 + local_col;
    const int b_row = k0 + local_row;
    a_tile[local_row][local_col] =
        (row < args.m && a_col < args.k) ? args.a[row * args.lda + a_col] : 0.0f;
    b_tile[local_row][local_col] =
        (b_row < args.k && col < args.n) ? args.b[b_row * args.ldb + col] : 0.0f;
    __syncthreads();  // the tiles are complete before anyone reads them

#pragma unroll
    for (int p = 0; p < kTile; ++p) acc += a_tile[local_row][p] * b_tile[p][local_col];
    __syncthreads();  // everyone is done reading before the next iteration overwrites the tiles
  }
  if (row < args.m && col < args.n) {
    cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);
  }
}
// [walkthrough]

}  // namespace
}  // namespace lab02

#include "launch.cuh"
