/// @file labs/11_tensor_cores/ceiling_kernels.cuh
/// @brief Lab 11's ceiling: the tensor cores' own rate, measured the way lab 00 measures the FP32
/// pipes'.
///
/// No memory traffic in the loop: every warp multiplies operands it already holds, many times, into
/// independent accumulators, so nothing but the tensor pipe limits the rate. Every operand is 1.0,
/// so each accumulator ends at exactly k x iterations (a sum of ones, exact in FP32 up to 2^24):
/// each thread writes 1 when all of its accumulators do and 0 otherwise, and the host checks every
/// thread, so a kernel that skipped work cannot pass.
#pragma once

#include "tensor_core_ptx.cuh"

#include <cstdint>

namespace lab11 {

/// Independent mma.sync accumulators per warp in the ceiling kernel.
inline constexpr int kMmaChains = 8;
/// Warpgroups per block in the wgmma ceiling kernel.
inline constexpr int kCeilingWarpgroups = 2;

/// mma.sync m16n8k16 (BF16 in, FP32 sums) on registers, kMmaChains independent accumulators per
/// warp, `iterations` times (compute capability 8.0+); `out` gets one 1/0 per thread.
__global__ void mma_ceiling_kernel(float* out, int iterations) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const std::uint32_t one_pair = 0x3F803F80u;  // two BF16 1.0s
  const std::uint32_t a[4] = {one_pair, one_pair, one_pair, one_pair};
  float acc[kMmaChains][4] = {};
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kMmaChains; ++c) ptx::mma_m16n8k16_bf16(acc[c], a, one_pair, one_pair);
  }
  const float expected = 16.0f * iterations;
  bool right = true;
#pragma unroll
  for (int c = 0; c < kMmaChains; ++c)
#pragma unroll
    for (int e = 0; e < 4; ++e) right = right && acc[c][e] == expected;
  out[blockIdx.x * blockDim.x + threadIdx.x] = right ? 1.0f : 0.0f;
#else
  (void)out;
  (void)iterations;
#endif
}

/// The k of one wgmma step of element type T: 16 BF16 or 8 TF32 (32 bytes of a row either way).
template <class T>
inline constexpr int kCeilingStepK = sizeof(T) == 2 ? 16 : 8;

/// Hopper's wgmma m64n256k16 (BF16, T = __nv_bfloat16) or m64n256k8 (TF32, T = float) with both
/// operands in shared memory, kCeilingWarpgroups warpgroups per block, `iterations` times
/// (sm_90a); `out` gets one 1/0 per thread.
template <class T>
__global__ void __launch_bounds__(128 * kCeilingWarpgroups, 1)
    wgmma_ceiling_kernel(float* out, int iterations) {
#if LAB11_HOPPER_DEVICE_CODE
  // A 64 x k and B k x 256 of ones, in tiles of 128-byte rows: the layout does not matter when
  // every element is 1.0.
  constexpr int kRow = 128 / static_cast<int>(sizeof(T));
  __shared__ alignas(1024) T a_tile[64 * kRow];
  __shared__ alignas(1024) T b_tile[256 * kRow];
  for (int i = threadIdx.x; i < 64 * kRow; i += blockDim.x) a_tile[i] = T(1.0f);
  for (int i = threadIdx.x; i < 256 * kRow; i += blockDim.x) b_tile[i] = T(1.0f);
  ptx::fence_proxy_async_shared();
  __syncthreads();
  const std::uint64_t a_desc = ptx::wgmma_descriptor(ptx::shared_address(a_tile), 16, 1024);
  const std::uint64_t b_desc = ptx::wgmma_descriptor(ptx::shared_address(b_tile), 8192, 1024);
  float acc[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) acc[i] = 0.0f;
  ptx::wgmma_hold(acc);
  for (int i = 0; i < iterations; ++i) {
    ptx::wgmma_fence();
    if constexpr (sizeof(T) == 2)
      ptx::wgmma_bf16<256>(acc, a_desc, b_desc, 1);
    else
      ptx::wgmma_tf32<256>(acc, a_desc, b_desc, 1);
    ptx::wgmma_commit();
    ptx::wgmma_wait<1>();  // one in flight while the next is issued
  }
  ptx::wgmma_wait<0>();
  ptx::wgmma_hold(acc);
  const float expected = static_cast<float>(kCeilingStepK<T>) * iterations;
  bool right = true;
#pragma unroll
  for (int i = 0; i < 128; ++i) right = right && acc[i] == expected;
  out[blockIdx.x * blockDim.x + threadIdx.x] = right ? 1.0f : 0.0f;
#else
  (void)out;
  (void)iterations;
#endif
}

}  // namespace lab11
