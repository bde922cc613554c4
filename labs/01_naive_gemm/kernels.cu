// Lab 01: the naive GEMM. YOUR KERNEL GOES HERE.
//
// Write `naive_gemm_kernel`: each thread computes one element
//   C(row, col) = alpha * sum_p A(row, p) * B(p, col) + beta * C(row, col).
// The launch (launch.cuh) is done for you: 32 x 8 threads per block and a grid that covers C. Only
// the mapping from threads to (row, col) differs between the two variants:
//   kThreadXWalksColumns == true  -> threadIdx.x moves along a row of C (x is the column)
//   kThreadXWalksColumns == false -> threadIdx.x moves down a column of C (x is the row)
// Read the handout (README.md) and predict which one is faster before you run `make lab N=01`.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab01 {
namespace {

template <bool kThreadXWalksColumns>
__global__ void naive_gemm_kernel(cudalabs::GemmArgs args) {
  // TODO(lab01): compute one element of C per thread.
  //  1. x = blockIdx.x * blockDim.x + threadIdx.x, and y likewise; pick row and col from x and y
  //     according to kThreadXWalksColumns.
  //  2. Threads outside C (row >= args.m or col >= args.n) return: the grid is rounded up.
  //  3. acc = sum over p < args.k of A(row, p) * B(p, col), where A(i, p) = args.a[i * args.lda +
  //  p]
  //     and B(p, j) = args.b[p * args.ldb + j].
  //  4. cudalabs::store_gemm_result(&C(row, col), acc, args.alpha, args.beta), with
  //     C(i, j) = args.c[i * args.ldc + j]. It does not read C when beta == 0.
  (void)args;
}

}  // namespace
}  // namespace lab01

#include "launch.cuh"
