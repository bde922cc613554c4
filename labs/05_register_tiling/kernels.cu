// Lab 05: register tiling. YOUR KERNEL GOES HERE.
//
// Write `register_tiled_kernel<BM, BN, BK, TM, TN>`. A block of (BM/TM) x (BN/TN) threads computes
// a BM x BN tile of C; thread t owns the TM x TN patch at rows (t / (BN/TN)) * TM .. + TM - 1 and
// columns (t % (BN/TN)) * TN .. + TN - 1 of the tile, accumulated in a register array acc[TM][TN].
// Per step of BK along K:
//  1. The block stages the BM x BK tile of A TRANSPOSED, a_tile[k][m] (rows padded by kPadA), and
//  the
//     BK x BN tile of B as b_tile[k][n]; the threads share the loads with a strided loop over the
//     tile's elements. Elements outside A or B are 0. Then __syncthreads().
//  2. For each k < BK: copy the thread's TM values a_tile[k][...] and TN values b_tile[k][...] into
//     register arrays, then acc[i][j] += a[i] * b[j] for all i, j. Fully unroll these loops
//     (#pragma unroll): register arrays must only be indexed with compile-time constants.
//  3. __syncthreads() before the next tile overwrites shared memory.
// Finally store the patch (only the elements inside C) with cudalabs::store_gemm_result.
// With TN = 1 this is the 1-D variant: one B value in a register serves TM products.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab05 {
namespace {

template <int BM, int BN, int BK, int TM, int TN>
__global__ void register_tiled_kernel(cudalabs::GemmArgs args) {
  // TODO(lab05): the register-tiled GEMM described above.
  (void)args;
}

}  // namespace
}  // namespace lab05

#include "launch.cuh"
