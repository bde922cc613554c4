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
  extern __shared__ float staged[];  // channel_chunk patches, then channel_chunk filters
  const cudalabs::ConvShape& shape = args.shape;
  const int P = shape.p(), Q = shape.q();
  const int f = blockIdx.y, n = blockIdx.z;
  const int p0 = (blockIdx.x / tiling.tiles_q) * tiling.tile_p;
  const int q0 = (blockIdx.x % tiling.tiles_q) * tiling.tile_q;
  const int plane = tiling.patch_plane(), taps = shape.r * shape.s;
  float* patch = staged;
  float* weights = staged + tiling.channel_chunk * plane;

  int offset[kFactor], out_p[kFactor], out_q[kFactor];
  bool valid[kFactor];
  float acc[kFactor];
#pragma unroll
  for (int j = 0; j < kFactor; ++j) {
    const int o = threadIdx.x + j * blockDim.x;
    const int op = o / tiling.tile_q, oq = o % tiling.tile_q;
    out_p[j] = p0 + op;
    out_q[j] = q0 + oq;
    valid[j] = o < tiling.outputs() && out_p[j] < P && out_q[j] < Q;
    offset[j] = valid[j] ? op * tiling.patch_w + oq : 0;
    acc[j] = 0.0f;
  }

  for (int c0 = 0; c0 < shape.c; c0 += tiling.channel_chunk) {
    const int chunk = min(tiling.channel_chunk, shape.c - c0);
    for (int e = threadIdx.x; e < chunk * plane; e += blockDim.x) {
      const int c = c0 + e / plane, y = (e % plane) / tiling.patch_w, x = e % tiling.patch_w;
      const int h = p0 + y, w = q0 + x;
      patch[e] =
          (h < shape.h && w < shape.w)
              ? args.input[((static_cast<long long>(n) * shape.c + c) * shape.h + h) * shape.w + w]
              : 0.0f;
    }
    for (int e = threadIdx.x; e < chunk * taps; e += blockDim.x)
      weights[e] = args.filter[(static_cast<long long>(f) * shape.c + c0) * taps + e];
    __syncthreads();
    for (int c = 0; c < chunk; ++c) {
      for (int r = 0; r < shape.r; ++r) {
        for (int s = 0; s < shape.s; ++s) {
          const float weight = weights[c * taps + r * shape.s + s];
          const float* row = patch + c * plane + r * tiling.patch_w + s;
#pragma unroll
          for (int j = 0; j < kFactor; ++j) acc[j] += row[offset[j]] * weight;
        }
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < kFactor; ++j)
    if (valid[j])
      args.output[((static_cast<long long>(n) * shape.f + f) * P + out_p[j]) * Q + out_q[j]] =
          acc[j];
}

}  // namespace
}  // namespace lab08

#include "launch.cuh"
