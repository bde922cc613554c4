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
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int row = kThreadXWalksColumns ? y : x;
  const int col = kThreadXWalksColumns ? x : y;
  if (row >= args.m || col >= args.n) return;
  float acc = 0.0f;
  for (int p = 0; p < args.k; ++p) acc += args.a[row * args.lda + p] * args.b[p * args.ldb + col];
  cudalabs::store_gemm_result(&args.c[row * args.ldc + col], acc, args.alpha, args.beta);
}

}  // namespace
}  // namespace lab01

#include "launch.cuh"
