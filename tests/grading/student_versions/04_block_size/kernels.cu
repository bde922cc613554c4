// Lab 04: block size. YOUR KERNEL GOES HERE.
//
// Write `tiled_gemm_kernel<kEdge>`: lab 02's coalesced tiled GEMM with the tile edge as a template
// parameter. A block of kEdge x kEdge threads computes the kEdge x kEdge tile of C at
// (blockIdx.y * kEdge, blockIdx.x * kEdge); thread (tx, ty) owns C(row0 + ty, col0 + tx), so that a
// warp's threads walk along a row (coalesced, conflict-free). The shared tiles are
// __shared__ float a_tile[kEdge][kEdge], b_tile[kEdge][kEdge].
// Then run `make lab N=04`: the driver prints every launch's registers, shared memory, block limits
// and theoretical occupancy next to its time. Which edge wins on your GPU, and why?
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab04 {
namespace {

template <int kEdge>
__global__ void tiled_gemm_kernel(cudalabs::GemmArgs args) {
  __shared__ float a_tile[kEdge][kEdge];
  __shared__ float b_tile[kEdge][kEdge];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kEdge + ty;
  const int col = blockIdx.x * kEdge + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < args.k; k0 += kEdge) {
    a_tile[ty][tx] = (row < args.m && k0 + tx < args.k) ? args.a[row * args.lda + k0 + tx] : 0.0f;
    b_tile[ty][tx] = (k0 + ty < args.k && col < args.n) ? args.b[(k0 + ty) * args.ldb + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kEdge; ++p) acc += a_tile[ty][p] * b_tile[p][tx];
    __syncthreads();
  }
  if (row < args.m && col < args.n)
    cudalabs::store_gemm_result(&args.c[row * args.ldc + col], acc, args.alpha, args.beta);
}

}  // namespace
}  // namespace lab04

#include "launch.cuh"
