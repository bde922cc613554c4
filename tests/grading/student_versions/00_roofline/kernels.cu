// Lab 00: the roofline. YOUR KERNELS GO HERE.
//
// Two kernels measure the two ceilings every later lab is judged against:
//  - copy_kernel moves count floats from src to dst: its bytes (read + written) per second is the
//    memory bandwidth a real kernel can reach.
//  - fma_kernel does nothing but fused multiply-adds on registers: its FLOP/s is the FP32 rate.
// The launches (launch.cuh) are done for you: 256 threads per block; copy_kernel gets a grid that
// fills the machine (so loop with a grid stride), fma_kernel gets one thread per output.
#include <cstddef>
#include <cstdint>

#include "lab.h"

namespace lab00 {
namespace {

__global__ void copy_kernel(const float* __restrict__ src, float* __restrict__ dst,
                            std::size_t count) {
  const std::size_t start = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(src) % 16 == 0) &&
                       (reinterpret_cast<std::uintptr_t>(dst) % 16 == 0);
  if (!aligned) {
    for (std::size_t i = start; i < count; i += stride) dst[i] = src[i];
    return;
  }
  // Both pointers 16-byte aligned: one float4 per thread and step, then the tail.
  const std::size_t vectors = count / 4;
  const float4* src4 = reinterpret_cast<const float4*>(src);
  float4* dst4 = reinterpret_cast<float4*>(dst);
  for (std::size_t i = start; i < vectors; i += stride) dst4[i] = src4[i];
  for (std::size_t i = vectors * 4 + start; i < count; i += stride) dst[i] = src[i];
}

__global__ void fma_kernel(float* out, long long threads, int iterations) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t >= threads) return;
  float x[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) x[c] = fma_start_value(t, c);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) x[c] = fmaf(x[c], kFmaMultiplier, kFmaAddend);
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) sum += x[c];
  out[t] = sum;
}

}  // namespace
}  // namespace lab00

#include "launch.cuh"
