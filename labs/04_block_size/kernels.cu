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
  // TODO(lab04): lab 02's tiled GEMM (threadIdx.x walking columns) with kEdge instead of 32.
  (void)args;
}

}  // namespace
}  // namespace lab04

#include "launch.cuh"
