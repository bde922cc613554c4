// Lab 08: thread coarsening of a shared-memory convolution. Your kernel.
//
// Write coarsened_conv_kernel<kFactor>: each thread computes kFactor outputs of its block's tile
// (tiling.h says what a block owns). The index arithmetic of an output is done once, before the
// channel loop, and the barriers are shared by all kFactor outputs: that is what coarsening buys.
// `make lab N=08` checks every factor against the CPU reference and times it; the handout
// (README.md) says what to measure and what to explain.
#include "lab.h"
#include "tiling.h"

namespace lab08 {
namespace {

template <int kFactor>
__global__ void coarsened_conv_kernel(cudalabs::ConvArgs args, ConvTiling tiling) {
  // TODO(student): the coarsened convolution.
  //  1. Which tile, filter and image: blockIdx.x (tile, row-major over tiling.tiles_q tiles per
  //  row),
  //     blockIdx.y (filter f), blockIdx.z (image n). The tile's first output is (p0, q0).
  //  2. For j = 0 .. kFactor-1, output o = threadIdx.x + j * blockDim.x of the tile is at
  //     (o / tiling.tile_q, o % tiling.tile_q); keep its offset in the staged patch and an
  //     accumulator in arrays of kFactor (registers: index them only with unrolled loops).
  //     Outputs past the tile or past the image (P x Q) are computed on nothing and never stored.
  //  3. For each chunk of tiling.channel_chunk channels: all threads copy the input patch
  //     (tiling.patch_h x tiling.patch_w per channel, zero outside the image) and the filter's
  //     weights for those channels into dynamic shared memory (extern __shared__), __syncthreads(),
  //     accumulate over c, r, s for every j, __syncthreads() again.
  //  4. Store the valid outputs: output[((n * F + f) * P + p) * Q + q].
  (void)args;
  (void)tiling;
}

}  // namespace
}  // namespace lab08

#include "launch.cuh"
