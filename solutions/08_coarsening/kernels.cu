// Lab 08 solution: the shared-memory convolution, coarsened by a compile-time factor.
//
// Idea ([COARSEN-KGP], section 3.1): merge the work of kFactor threads into one. What depends on
// the thread index (an output's position, its offset in the staged patch, its accumulator) is
// replicated kFactor times; what does not (the block's origin, the staging loops, the filter weight
// read from shared memory, and the two barriers per channel chunk) is done once for all of them.
// The block shrinks by kFactor, so more blocks fit on an SM and fewer barriers are executed; each
// thread keeps kFactor accumulators and offsets live, so registers grow with kFactor, and past some
// factor the register file, not the thread count, caps the resident warps (Tables 3.1 and 3.2).
//
// A template parameter replaces the thesis's PyExpander generator: `#pragma unroll` over kFactor
// turns the per-output arrays into registers, exactly as the generated code would.
#include "lab.h"
#include "tiling.h"

namespace lab08 {
namespace {

// [walkthrough]
template <int kFactor>
__global__ void coarsened_conv_kernel(cudalabs::ConvArgs args, ConvTiling tiling) {
  extern __shared__ float shared[];
  const cudalabs::ConvShape& shape = args.shape;
  const int P = shape.p(), Q = shape.q();
  const int plane = tiling.patch_plane();
  float* patch = shared;                                   // [channel_chunk][patch_h][patch_w]
  float* weights = shared + tiling.channel_chunk * plane;  // [channel_chunk][R][S]

  const int f = blockIdx.y, n = blockIdx.z;
  const int p0 = (blockIdx.x / tiling.tiles_q) * tiling.tile_p;
  const int q0 = (blockIdx.x % tiling.tiles_q) * tiling.tile_q;

  // Per output, once: where its window starts in the staged patch. An output past the tile or the
  // image reads offset 0 (harmless) and is never stored, so the inner loop needs no branch.
  int offset[kFactor];
  float acc[kFactor];
#pragma unroll
  for (int j = 0; j < kFactor; ++j) {
    const int o = threadIdx.x + j * blockDim.x;
    const int lp = o / tiling.tile_q, lq = o % tiling.tile_q;
    const bool inside = o < tiling.outputs() && p0 + lp < P && q0 + lq < Q;
    offset[j] = inside ? lp * tiling.patch_w + lq : 0;
    acc[j] = 0.0f;
  }

  const int rows_in_image = min(tiling.patch_h, shape.h - p0);
  const int cols_in_image = min(tiling.patch_w, shape.w - q0);
  const int taps = shape.r * shape.s;
  for (int c0 = 0; c0 < shape.c; c0 += tiling.channel_chunk) {
    const int channels = min(tiling.channel_chunk, shape.c - c0);
    // Stage the patch (zeros where a partial tile's patch runs past the image) and the weights of
    // filter f for these channels, which are contiguous in F x C x R x S.
    for (int i = threadIdx.x; i < channels * plane; i += blockDim.x) {
      const int c = i / plane, y = (i % plane) / tiling.patch_w, x = i % tiling.patch_w;
      patch[i] = (y < rows_in_image && x < cols_in_image)
                     ? args.input[((n * shape.c + c0 + c) * shape.h + p0 + y) * shape.w + q0 + x]
                     : 0.0f;
    }
    const float* filter_chunk = args.filter + (f * shape.c + c0) * taps;
    for (int i = threadIdx.x; i < channels * taps; i += blockDim.x) weights[i] = filter_chunk[i];
    __syncthreads();  // one barrier for kFactor outputs

    for (int c = 0; c < channels; ++c) {
      for (int r = 0; r < shape.r; ++r) {
        for (int s = 0; s < shape.s; ++s) {
          const float w =
              weights[(c * shape.r + r) * shape.s + s];  // one shared read, kFactor FMAs
          const float* window = patch + c * plane + r * tiling.patch_w + s;
#pragma unroll
          for (int j = 0; j < kFactor; ++j) acc[j] += window[offset[j]] * w;
        }
      }
    }
    __syncthreads();  // everyone is done with this chunk before the next one overwrites it
  }

#pragma unroll
  for (int j = 0; j < kFactor; ++j) {
    const int o = threadIdx.x + j * blockDim.x;
    const int p = p0 + o / tiling.tile_q, q = q0 + o % tiling.tile_q;
    if (o < tiling.outputs() && p < P && q < Q)
      args.output[((n * shape.f + f) * P + p) * Q + q] = acc[j];
  }
}
// [walkthrough]

}  // namespace
}  // namespace lab08

#include "launch.cuh"
