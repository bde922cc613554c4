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

template <int BM, int BN, int BK, int TM, int TN>
__global__ void prefetch_gemm_kernel(cudalabs::GemmArgs args) {
  // TODO(lab06): double-buffered GEMM with global->register prefetch.
  // Declare both kernels __launch_bounds__((BM / TM) * (BN / TN), 2): what the cap changes, and
  // what it costs, is for you to predict (the handout's "Predict first" table) before you measure.
  (void)args;
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void async_gemm_kernel(cudalabs::GemmArgs args) {
  // TODO(lab06): multi-stage GEMM with cp.async.
  (void)args;
}

}  // namespace
}  // namespace lab06

#include "launch.cuh"
