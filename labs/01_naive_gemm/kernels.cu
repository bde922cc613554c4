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
  // TODO(lab01): one thread computes one element C(row, col) = alpha * (row of A . column of B) +
  // beta * C(row, col). The lesson is which thread gets which element: with kThreadXWalksColumns
  // the 32 threads of a warp must take 32 neighbouring columns of one row, without it 32
  // neighbouring rows of one column. Threads outside C have nothing to do (the grid is rounded up).
  // Store with cudalabs::store_gemm_result (common/gemm_device.cuh). Stuck on the indexing? The
  // handout's "Hints" section has three hints, each giving more away than the one before.
  (void)args;
}

}  // namespace
}  // namespace lab01

#include "launch.cuh"
