/// @file async_copy.cuh
/// @brief cp.async (compute capability 8.0+): global-to-shared copies that bypass registers and run
/// in the background, with a plain synchronous copy on older GPUs so that every kernel runs
/// everywhere.
#pragma once

#include <cuda_runtime.h>

namespace cudalabs {

/// Starts copying 4 bytes from global `src` to shared `dst`; when `valid` is false the destination
/// is zero-filled instead and `src` is not read (it must still be a valid address).
__device__ __forceinline__ void async_copy_4(float* dst, const float* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned shared_address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int source_bytes = valid ? 4 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address), "l"(src),
               "r"(source_bytes));
#else
  *dst = valid ? *src : 0.0f;
#endif
}

/// Starts copying 16 bytes (both addresses 16-byte aligned); `valid` false zero-fills instead.
__device__ __forceinline__ void async_copy_16(float* dst, const float* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned shared_address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int source_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address), "l"(src),
               "r"(source_bytes));
#else
  *reinterpret_cast<float4*>(dst) =
      valid ? *reinterpret_cast<const float4*>(src) : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

/// Starts a 16-byte copy to shared `dst` (both addresses 16-byte aligned) of which only the first
/// `source_bytes` (0 to 16) are read from `src` and the rest zero-filled: one instruction for a
/// whole chunk, a partial chunk at a matrix's edge, or none of it (0 reads nothing).
__device__ __forceinline__ void async_copy_16_zero_fill(void* dst, const void* src,
                                                        int source_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned shared_address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address), "l"(src),
               "r"(source_bytes));
#else
  alignas(16) unsigned char bytes[16];
  for (int i = 0; i < 16; ++i)
    bytes[i] = i < source_bytes ? static_cast<const unsigned char*>(src)[i] : 0;
  *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(bytes);
#endif
}

/// Starts a 4-byte copy to shared `dst` (both addresses 4-byte aligned) of which only the first
/// `source_bytes` (0, 2 or 4) are read from `src` and the rest zero-filled: a pair of 16-bit
/// values, one of them, or none, for rows aligned to 4 bytes but not 16 (cp.async.cg takes only
/// 16).
__device__ __forceinline__ void async_copy_4_zero_fill(void* dst, const void* src,
                                                       int source_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned shared_address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address), "l"(src),
               "r"(source_bytes));
#else
  unsigned char bytes[4] = {};
  for (int i = 0; i < source_bytes; ++i) bytes[i] = static_cast<const unsigned char*>(src)[i];
  for (int i = 0; i < 4; ++i) static_cast<unsigned char*>(dst)[i] = bytes[i];
#endif
}

/// Closes the group of copies started since the last commit.
__device__ __forceinline__ void async_copy_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most `kPending` committed groups of this thread are still in flight. Other
/// threads' copies become visible only after a __syncthreads() that follows.
template <int kPending>
__device__ __forceinline__ void async_copy_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

}  // namespace cudalabs
