// Lab 02: shared-memory tiling. YOUR KERNEL GOES HERE.
//
// Write `tiled_gemm_kernel`. A block of kTile x kTile threads computes the kTile x kTile tile of C
// at (blockIdx.y * kTile, blockIdx.x * kTile), one element per thread. It walks along K one tile at
// a time: the block loads a kTile x kTile tile of A and one of B into shared memory (one element of
// each per thread), waits, accumulates kTile products from shared memory, waits, and moves on.
//
// Template parameters (one kernel, three variants; see launch.cuh):
//   kThreadXWalksRows: true  -> the thread's row in the tile is threadIdx.x, its column threadIdx.y
//                      false -> the row is threadIdx.y, the column threadIdx.x
//   kPadding: extra floats at the end of every shared-memory row (0 or 1): declare the tiles as
//             __shared__ float a_tile[kTile][kTile + kPadding] (and b_tile likewise).
// Every shape must work: load 0 for tile elements outside A or B, store only inside C.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab02 {
namespace {

template <bool kThreadXWalksRows, int kPadding>
__global__ void tiled_gemm_kernel(cudalabs::GemmArgs args) {
  // TODO(lab02): the tiled GEMM.
  //  1. local_row/local_col from threadIdx per kThreadXWalksRows; row = blockIdx.y * kTile +
  //  local_row,
  //     col = blockIdx.x * kTile + local_col.
  //  2. For each k0 = 0, kTile, 2 kTile, ... < args.k:
  //       a_tile[local_row][local_col] = A(row, k0 + local_col) or 0 outside A;
  //       b_tile[local_row][local_col] = B(k0 + local_row, col) or 0 outside B;
  //       __syncthreads(); acc += a_tile[local_row][p] * b_tile[p][local_col] for p < kTile;
  //       __syncthreads();   (why is this second barrier needed?)
  //  3. If (row, col) is inside C: cudalabs::store_gemm_result(&C(row, col), acc, args.alpha,
  //  args.beta).
  (void)args;
}

}  // namespace
}  // namespace lab02

#include "launch.cuh"
