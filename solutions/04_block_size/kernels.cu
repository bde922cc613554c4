// Lab 04 solution: the coalesced shared-memory tiled GEMM with the block edge as a template
// parameter.
//
// The edge sets three things at once: the work per block (edge^2 outputs), the reuse of each tile
// (every element loaded into shared memory is read edge times, so global traffic falls as 1/edge),
// and the block's footprint on the SM (edge^2 threads, 2 edge^2 floats of shared memory). Small
// blocks are held back by the cap on resident blocks per SM (32 on Hopper: 4x4 blocks fill only
// half the warp slots, and their warps are half empty) and by low reuse; 32 x 32 blocks reuse the
// most but every barrier stalls 32 warps at once. The occupancy calculator (common/occupancy)
// predicts the first effect, the measurement shows the rest.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab04 {
namespace {

// [walkthrough]
template <int kEdge>
__global__ void tiled_gemm_kernel(cudalabs::GemmArgs args) {
  __shared__ float a_tile[kEdge][kEdge];
  __shared__ float b_tile[kEdge][kEdge];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kEdge + ty;
  const int col = blockIdx.x * kEdge + tx;

  float acc = 0.0f;
  for (int k0 = 0; k0 < args.k; k0 += kEdge) {
    const int a_col = k0 + tx, b_row = k0 + ty;
    a_tile[ty][tx] = (row < args.m && a_col < args.k) ? args.a[row * args.lda + a_col] : 0.0f;
    b_tile[ty][tx] = (b_row < args.k && col < args.n) ? args.b[b_row * args.ldb + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kEdge; ++p) acc += a_tile[ty][p] * b_tile[p][tx];
    __syncthreads();
  }
  if (row < args.m && col < args.n) {
    cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);
  }
}
// [walkthrough]

}  // namespace
}  // namespace lab04

#include "launch.cuh"
