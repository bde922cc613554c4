// Lab 01 solution: the naive GEMM.
//
// Idea: one thread computes one element C(row, col) as the dot product of row `row` of A with
// column `col` of B, reading both straight from global memory. Every A and B element is read n or m
// times, so the kernel is limited by memory traffic, and how a warp's 32 threads map onto C decides
// whether those reads combine into few transactions (coalesced) or scatter into 32 (strided).
//
// Block: 32 x 8 threads. In `naive_coalesced` threadIdx.x is the column, so a warp covers 32
// consecutive columns of one row: per step it reads one A(row, p) (a broadcast) and 32 consecutive
// B(p, col) (one 128-byte line), and it writes 32 consecutive floats of C. In `naive_strided`
// threadIdx.x is the row: a warp reads from 32 different rows of A (32 lines, one float used from
// each) and writes down a column of C. Expect the strided mapping to be several times slower (seed
// 001 measured 10x on a V100).
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab01 {
namespace {

// [walkthrough]
template <bool kThreadXWalksColumns>
__global__ void naive_gemm_kernel(cudalabs::GemmArgs args) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int row = kThreadXWalksColumns ? y : x;
  const int col = kThreadXWalksColumns ? x : y;
  if (row >= args.m || col >= args.n) return;  // the grid is rounded up to whole blocks

  const float* a_row = args.a + row * args.lda;
  const float* b_col = args.b + col;
  float acc = 0.0f;
  for (int p = 0; p < args.k; ++p) acc += a_row[p] * b_col[p * args.ldb];
  cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);
}
// [walkthrough]

}  // namespace
}  // namespace lab01

#include "launch.cuh"
