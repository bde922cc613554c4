// Lab 03: transposed shared-memory layouts. YOUR KERNEL GOES HERE.
//
// Write `layout_gemm_kernel`, the tiled GEMM of lab 02 with [SGEMM-3080]'s thread mapping and a
// choice of layout for each shared tile. A block of 16 x 16 threads computes the 16 x 16 tile of C
// whose first row is blockIdx.x * kTile and first column blockIdx.y * kTile; thread (tx, ty) owns
// C(row0 + tx, col0 + ty). Per step along K, the thread loads
//   A(row0 + tx, k0 + ty)  and  B(k0 + tx, col0 + ty)
// and stores them in the tiles. With kTransposeA == false the A tile is a_tile[row][k], i.e.
// a_tile[tx][ty]; with true it is a_tile[k][row], i.e. a_tile[ty][tx]. Likewise for B:
// b_tile[k][col] (b_tile[tx][ty]) or, transposed, b_tile[col][k] (b_tile[ty][tx]). The inner
// product then reads A(tx, p) and B(p, ty) from whichever layout was chosen. Before measuring:
// which accesses of a warp (tx = 0..15, two values of ty) hit the same bank in each layout? Write
// your prediction of the order RR, RC, CR, CC in the handout's table.
#include "common/gemm_device.cuh"
#include "lab.h"

namespace lab03 {
namespace {

template <bool kTransposeA, bool kTransposeB>
__global__ void layout_gemm_kernel(cudalabs::GemmArgs args) {
  // TODO(lab03): lab 02's tiled GEMM with [SGEMM-3080]'s mapping (threadIdx.x walks the rows of C),
  // 16 x 16 tiles, and each tile stored as in global memory or transposed as the template
  // parameters say. The lesson is the bank geometry of each layout: work it out before you measure.
  // The handout's "Hints" section has three hints, each giving more away than the one before.
  (void)args;
}

}  // namespace
}  // namespace lab03

#include "launch.cuh"
