// Lab 09: your kernels. Each TODO kernel below compiles and launches but writes nothing: the driver
// poisons every output first, so it reports "not implemented yet" until you fill it in.
//
// Read common/dcgan_model.h for the exact sum of the transposed convolution, lab.h for what each
// function must do, and subpixel.h for the phase decomposition. Apply `args.epilogue` to every
// value you write (apply_epilogue in epilogue.cuh): that is where bias, batch norm and ReLU go.
#include "labs/09_dcgan/epilogue.cuh"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/subpixel.h"

namespace lab09 {
namespace {

// One thread per output value out[n][y][x][k], grid-stride over batch * 2H * 2W * K values (k the
// fastest index, so that neighbouring threads write neighbouring addresses). For each of the 25
// taps (r, s): the input row is (y + 1 - r) / 2 when y + 1 - r is even and the row is inside the
// input, likewise the column; sum input * filter[r][s][k][c] over c, then apply the epilogue.
__global__ void naive_tconv_kernel(TconvArgs args) {
  // TODO(lab09): the naive transposed convolution ([DCGAN-SHPC] §2.2).
  (void)args;
}

// The same sum without the parity branch ([DCGAN-SHPC] §2.2.1): start r at the first value with
// y + 1 - r even and step by 2 (likewise s), so every visited tap lands on a real input pixel.
__global__ void branch_free_tconv_kernel(TconvArgs args) {
  // TODO(lab09): the branch-free transposed convolution.
  (void)args;
}

// I' of [DCGAN-SHPC] eqs. 11-12: element (row d, column (r * 5 + s) * C + c) with d = (n, y, x) is
// J[y + r][x + s][c] of image n: the input pixel ((y + r - 3) / 2, (x + s - 3) / 2) when both
// y + r - 3 and x + s - 3 are even and inside the input, 0 otherwise. One thread per element.
__global__ void lower_input_kernel(cudalabs::dcgan::TconvShape shape, const float* input,
                                   float* lowered) {
  // TODO(lab09): build the lowered input.
  (void)shape;
  (void)input;
  (void)lowered;
}

// The sub-pixel transposed convolution as an implicit GEMM, one phase per blockIdx.z (subpixel.h).
// Block (blockIdx.x, blockIdx.y) computes a kTileM x kTileN tile of phase z's output: rows are
// input pixels (n, i, j), ordered image-fastest (row m = (i * W + j) * batch + n, so that a block's
// rows share one pixel position and the same taps fall outside the image for all of them), columns
// are output channels; a row's output pixel is (n, 2 i + py, 2 j + px). Step
// through the reduction (tap, c) subpixel::kTileK at a time: stage the A tile (input pixels at the
// tap's offset, zeros outside the image) and the B tile (rows of the packed filter) in shared
// memory, and let each thread accumulate its 8 x kThreadN block in registers, as in labs 05-07.
// Finish with the epilogue. Each of the (kTileM / 8) * (kTileN / kThreadN) threads owns 8 x
// kThreadN outputs. kMinBlocks is the occupancy the launch asks for (__launch_bounds__(threads,
// kMinBlocks) caps the registers so that that many blocks fit on an SM).
template <int kTileM, int kTileN, int kThreadN, int kMinBlocks>
__global__ void subpixel_tconv_kernel(TconvArgs args) {
  // TODO(lab09): the sub-pixel implicit GEMM.
  (void)args;
}

// The sub-pixel form for a few output channels (K <= subpixel::kMaxSmallK, the RGB layer), where a
// GEMM tile would be mostly padding and every input value feeds only K FMAs: reuse the loads
// instead. Grid-stride over items p = (n * H + i) * groups + g, groups = ceil(W / kSmallKPixels):
// one thread computes all K channels of the 2 x (2 kSmallKPixels) outputs (2 i + py, 2 j + px) of
// the input pixels j = 4 g .. 4 g + 3, all four phases. Output (2 i + py, 2 j + px) reads input (i
// + d, j + e) through filter (r, s) = (py + 1 - 2 d, px + 1 - 2 e) when both are in 0..4. Stage the
// filter in the dynamic shared memory first (25 C float4s: one per (r, s, c) holding the K output
// channels, zero-padded), unpacking args.filter, which is in the packed layout of subpixel.h.
__global__ void subpixel_small_k_kernel(TconvArgs args) {
  // TODO(lab09): the sub-pixel kernel for the RGB layer.
  (void)args;
}

}  // namespace
}  // namespace lab09

#include "labs/09_dcgan/launch.cuh"
