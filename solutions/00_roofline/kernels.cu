// Lab 00 solution: the two ceilings.
//
// copy_kernel: a grid-stride copy with 128-bit accesses. Bandwidth needs many bytes in flight, not
// many instructions: one LDG.128/STG.128 pair per thread and step moves 16 bytes with one
// instruction each, and the grid (8 blocks of 256 per SM) keeps every SM at full occupancy. The
// last count % 4 floats, and misaligned pointers, go through a scalar loop.
//
// fma_kernel: kFmaChains independent chains of FFMA per thread. An FFMA's result is ready after a
// few cycles; with 8 independent chains per thread and many warps per scheduler, every cycle has an
// FFMA ready to issue. The inner loop is unrolled so the loop counter costs little next to the 8
// FMAs of each step. Expect close to SMs x FP32 lanes x 2 x clock (about 67 TFLOP/s on an H100
// SXM).
#include <cstddef>
#include <cstdint>

#include "lab.h"

namespace lab00 {
namespace {

__global__ void copy_kernel(const float* __restrict__ src, float* __restrict__ dst,
                            std::size_t count) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(src) % 16 == 0) &&
                       (reinterpret_cast<std::uintptr_t>(dst) % 16 == 0);
  if (aligned) {
    const std::size_t vectors = count / 4;
    const float4* src4 = reinterpret_cast<const float4*>(src);
    float4* dst4 = reinterpret_cast<float4*>(dst);
    for (std::size_t i = first; i < vectors; i += stride) dst4[i] = src4[i];
    for (std::size_t i = vectors * 4 + first; i < count; i += stride) dst[i] = src[i];
  } else {
    for (std::size_t i = first; i < count; i += stride) dst[i] = src[i];
  }
}

// [walkthrough]
__global__ void fma_kernel(float* out, long long threads, int iterations) {
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread >= threads) return;
  float chains[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) chains[c] = fma_start_value(thread, c);
#pragma unroll 8
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) chains[c] = fmaf(chains[c], kFmaMultiplier, kFmaAddend);
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) sum += chains[c];
  out[thread] = sum;
}
// [walkthrough]

}  // namespace
}  // namespace lab00

#include "launch.cuh"
