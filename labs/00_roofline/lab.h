/// @file labs/00_roofline/lab.h
/// @brief Lab 00: measure the device's two ceilings, memory bandwidth and FP32 rate, and the ridge
/// point.
#pragma once

#include "common/gemm_variant.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>

/// Lab 00: the roofline.
namespace lab00 {

/// Independent FMA chains per thread in the FMA kernel: enough independent work in flight to cover
/// the FMA pipeline's latency from every warp.
inline constexpr int kFmaChains = 8;
/// Each FMA step is x = x * kFmaMultiplier + kFmaAddend: a contraction that keeps x bounded (it
/// converges to 1) so that no value overflows whatever the iteration count.
inline constexpr float kFmaMultiplier = 0.999f;
/// See kFmaMultiplier.
inline constexpr float kFmaAddend = 0.001f;
/// Threads per block of both kernels.
inline constexpr int kThreadsPerBlock = 256;

/// The value chain `chain` of thread `thread` starts from. Exact in float (a multiple of 2^-10 plus
/// a small integer), so host and device agree bit for bit.
__host__ __device__ inline float fma_start_value(long long thread, int chain) {
  return static_cast<float>(thread % 1021) * 0.0009765625f + static_cast<float>(chain);
}

/// The FMA kernel's output for one thread, computed on the CPU with the same operations in the same
/// order (std::fma rounds once, as the GPU's FFMA does): the sum of the kFmaChains chain values,
/// added in chain order.
inline float fma_reference(long long thread, int iterations) {
  float chains[kFmaChains];
  for (int c = 0; c < kFmaChains; ++c) chains[c] = fma_start_value(thread, c);
  for (int i = 0; i < iterations; ++i)
    for (int c = 0; c < kFmaChains; ++c)
      chains[c] = std::fma(chains[c], kFmaMultiplier, kFmaAddend);
  float sum = 0.0f;
  for (int c = 0; c < kFmaChains; ++c) sum += chains[c];
  return sum;
}

/// Floating-point operations of one FMA-kernel launch: threads * iterations * chains * 2.
inline double fma_flops(long long threads, int iterations) {
  return 2.0 * static_cast<double>(threads) * iterations * kFmaChains;
}

/// Copies `count` floats from `src` to `dst` (device pointers, any alignment, count >= 1).
void launch_copy(const float* src, float* dst, std::size_t count, cudaStream_t stream);

/// Runs the FMA kernel: `threads` threads, each running kFmaChains chains of `iterations` FMA steps
/// and writing the sum of its chains to out[thread].
void launch_fma(float* out, long long threads, int iterations, cudaStream_t stream);

/// The copy kernel's launch for `count` floats (for occupancy and register reports).
cudalabs::KernelLaunch describe_copy(std::size_t count);

/// The FMA kernel's launch for `threads` threads.
cudalabs::KernelLaunch describe_fma(long long threads);

}  // namespace lab00
