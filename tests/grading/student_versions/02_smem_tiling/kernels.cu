// Lab 02: shared-memory tiling. YOUR KERNEL GOES HERE.
//
// Write `tiled_gemm_kernel`. A block of kTile x kTile threads computes the kTile x kTile tile of C
// at (blockIdx.y * kTile, blockIdx.x * kTile), one element per thread. It walks along K one tile at
// a time: the block loads a kTile x kTile tile of A and one of B into shared memory (one element of
// each per thread), waits, accumulates kTile products from shared memory, waits, and moves on.
//
// Template parameters (one kernel, three variants; see launch.cuh):
//   kThreadXWalksRows: true  -> the thread's row in the tile is threadIdx.x, its column threadIdx.y
//                      false -> the row is threadIdx.y, the column threadIdx.x
//   kPadding: extra floats at the end of every shared-memory row (0 or 1): declare the tiles as
//             __shared__ float a_tile[kTile][kTile + kPadding] (and b_tile likewise).
// Every shape must work: load 0 for tile elements outside A or B, store only inside C.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab02 {
namespace {

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
    const int a_col = k0 + local_col;
    const int b_row = k0 + local_row;
    a_tile[local_row][local_col] =
        (row < args.m && a_col < args.k) ? args.a[row * args.lda + a_col] : 0.0f;
    b_tile[local_row][local_col] =
        (b_row < args.k && col < args.n) ? args.b[b_row * args.ldb + col] : 0.0f;
    __syncthreads();  // the tiles are complete before anyone reads them
    for (int p = 0; p < kTile; ++p) acc += a_tile[local_row][p] * b_tile[p][local_col];
    __syncthreads();  // nobody overwrites them while another warp still reads
  }
  if (row < args.m && col < args.n)
    cudalabs::store_gemm_result(&args.c[row * args.ldc + col], acc, args.alpha, args.beta);
}

}  // namespace
}  // namespace lab02

#include "launch.cuh"
