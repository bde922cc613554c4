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
  // TODO(lab02): the tiled GEMM. Each step along K, the block copies a kTile x kTile tile of A and
  // one of B into shared memory (zeros outside the matrices), waits until all are there, and each
  // thread accumulates its element from the tiles; the variants differ in which thread owns which
  // element (kThreadXWalksRows) and in the padding of the tile rows (kPadding), which is the
  // lesson: predict each one's bank conflicts. Two barriers per step: say why each is needed. The
  // handout's "Hints" section has three hints, each giving more away than the one before.
  (void)args;
}

}  // namespace
}  // namespace lab02

#include "launch.cuh"
