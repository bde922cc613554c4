// Lab 03: transposed shared-memory layouts. YOUR KERNEL GOES HERE.
//
// Write `layout_gemm_kernel`, the tiled GEMM of lab 02 with [SGEMM-3080]'s thread mapping and a
// choice of layout for each shared tile. A block of 16 x 16 threads computes the 16 x 16 tile of C
// whose first row is blockIdx.x * kTile and first column blockIdx.y * kTile; thread (tx, ty) owns
// C(row0 + tx, col0 + ty). Per step along K, the thread loads
//   A(row0 + tx, k0 + ty)  and  B(k0 + tx, col0 + ty)
// and stores them in the tiles. With kTransposeA == false the A tile is a_tile[row][k], i.e.
// a_tile[tx][ty]; with true it is a_tile[k][row], i.e. a_tile[ty][tx]. Likewise for B:
// b_tile[k][col] (b_tile[tx][ty]) or, transposed, b_tile[col][k] (b_tile[ty][tx]). The inner
// product then reads A(tx, p) and B(p, ty) from whichever layout was chosen. Before measuring:
// which accesses of a warp (tx = 0..15, two values of ty) hit the same bank in each layout? Write
// your prediction of the order RR, RC, CR, CC in the handout's table.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab03 {
namespace {

// Element (r, c) of a logical tile, stored as tile[r][c] or, transposed, as tile[c][r].
template <bool kTransposed>
__device__ __forceinline__ float& at(float (&tile)[kTile][kTile], int r, int c) {
  return kTransposed ? tile[c][r] : tile[r][c];
}

template <bool kTransposeA, bool kTransposeB>
__global__ void layout_gemm_kernel(cudalabs::GemmArgs args) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.x * kTile + tx;
  const int col = blockIdx.y * kTile + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < args.k; k0 += kTile) {
    at<kTransposeA>(a_tile, tx, ty) =
        (row < args.m && k0 + ty < args.k) ? args.a[row * args.lda + k0 + ty] : 0.0f;
    at<kTransposeB>(b_tile, tx, ty) =
        (k0 + tx < args.k && col < args.n) ? args.b[(k0 + tx) * args.ldb + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p)
      acc += at<kTransposeA>(a_tile, tx, p) * at<kTransposeB>(b_tile, p, ty);
    __syncthreads();
  }
  if (row < args.m && col < args.n)
    cudalabs::store_gemm_result(&args.c[row * args.ldc + col], acc, args.alpha, args.beta);
}

}  // namespace
}  // namespace lab03

#include "launch.cuh"
