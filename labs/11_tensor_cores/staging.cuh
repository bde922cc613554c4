/// @file labs/11_tensor_cores/staging.cuh
/// @brief Lab 11, given: what the tensor-core rungs share and do not teach, for BF16 and FP16
/// inputs alike.
///
/// Staging 16-byte chunks of A and B into shared memory (cp.async when the operands allow it,
/// element by element otherwise), the multistage cp.async loop of the pipelined rungs (lab 07's
/// recipe), the alpha/beta update of C from an accumulator pair (mma.sync and wgmma lanes hold
/// pairs of columns), and a few small helpers. Include it from your kernels.cu; nothing here is a
/// TODO. The layouts the rungs teach (the 128-byte swizzle, the fragments, the descriptors) are
/// yours to write.
#pragma once

#include "common/async_copy.cuh"
#include "common/gemm_types.h"
#include "tensor_core_ptx.cuh"
#include "tiles.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace lab11 {

using bf16 = __nv_bfloat16;  ///< the BF16 rungs' input type
using fp16 = __half;         ///< the FP16 rungs' input type

/// Zero in a 16-bit input type.
template <class T>
__device__ __forceinline__ T zero_of() {
  if constexpr (std::is_same_v<T, fp16>) {
    return __float2half_rn(0.0f);
  } else {
    return __float2bfloat16_rn(0.0f);
  }
}

/// One warp-wide 16 x 8 x 16 tensor-core step at T's precision (tensor_core_ptx.cuh).
__device__ __forceinline__ void mma_16x8x16(bf16, float (&d)[4], const std::uint32_t (&a)[4],
                                            std::uint32_t b0, std::uint32_t b1) {
  ptx::mma_m16n8k16_bf16(d, a, b0, b1);
}
/// The same step with FP16 inputs (two m16n8k8 on compute capability 7.5).
__device__ __forceinline__ void mma_16x8x16(fp16, float (&d)[4], const std::uint32_t (&a)[4],
                                            std::uint32_t b0, std::uint32_t b1) {
  ptx::mma_m16n8k16_fp16(d, a, b0, b1);
}

/// Copies the 8 elements (row, col .. col + 7) of a rows x cols matrix into 16 bytes of shared
/// memory at `destination`, zeros outside the matrix. kAligned (the matrix 16-byte aligned, ld a
/// multiple of 8) takes one cp.async that reads only the bytes inside; otherwise 8 element loads
/// and one 16-byte store.
template <bool kAligned, class T>
__device__ __forceinline__ void stage_chunk(void* destination, const T* __restrict__ matrix, int ld,
                                            int rows, int cols, int row, int col) {
  if constexpr (kAligned) {
    const int inside = row < rows && col < cols ? min(kChunk, cols - col) : 0;
    const T* source = inside > 0 ? matrix + row * ld + col : matrix;
    cudalabs::async_copy_16_zero_fill(destination, source, inside * 2);
  } else {
    alignas(16) T values[kChunk];
#pragma unroll
    for (int e = 0; e < kChunk; ++e) {
      values[e] = row < rows && col + e < cols ? matrix[row * ld + col + e] : zero_of<T>();
    }
    *reinterpret_cast<uint4*>(destination) = *reinterpret_cast<const uint4*>(values);
  }
}

/// The multistage cp.async loop of rungs 2 to 4 over `tiles` tiles of K: kStages - 1 tiles in
/// flight before the first multiply, one commit group per tile (empty ones too, so that "wait until
/// kStages - 2 groups remain" always means "tile t has landed"). load(stage, tile) starts the
/// copies of a tile into a stage; multiply(stage) consumes one. The barrier before each multiply
/// also tells every thread that the stage about to be refilled was read by all. kAsyncReaders: the
/// stages are read by wgmma (the async proxy), so each thread orders its writes before them with a
/// fence.
// [pipeline]
template <int kStages, bool kAsyncReaders, typename Load, typename Multiply>
__device__ __forceinline__ void cp_async_pipeline(int tiles, Load load, Multiply multiply) {
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) load(s, s);
    cudalabs::async_copy_commit();
  }
  for (int t = 0; t < tiles; ++t) {
    cudalabs::async_copy_wait<kStages - 2>();
    if constexpr (kAsyncReaders) ptx::fence_proxy_async_shared();
    __syncthreads();
    const int next = t + kStages - 1;
    if (next < tiles) load(next % kStages, next);
    cudalabs::async_copy_commit();
    multiply(t % kStages);
  }
  cudalabs::async_copy_wait<0>();  // no copy may land after the block has moved on
}
// [pipeline]

/// C(row, col .. col + 1) = alpha * (v0, v1) + beta * C: the pair of accumulators an mma.sync or
/// wgmma lane holds. One 8-byte store where C allows (8-byte aligned, ldc even: `pairs`), C never
/// read when beta == 0, nothing stored outside C.
template <class T>
__device__ __forceinline__ void store_pair(const cudalabs::GemmArgsOf<T>& args, int row, int col,
                                           float v0, float v1, bool pairs) {
  if (row >= args.m || col >= args.n) return;
  float* c = args.c + row * args.ldc + col;
  if (pairs && col + 1 < args.n) {
    float2 out = make_float2(args.alpha * v0, args.alpha * v1);
    if (args.beta != 0.0f) {
      const float2 old = *reinterpret_cast<const float2*>(c);
      out.x += args.beta * old.x;
      out.y += args.beta * old.y;
    }
    *reinterpret_cast<float2*>(c) = out;
    return;
  }
  c[0] = args.alpha * v0 + (args.beta != 0.0f ? args.beta * c[0] : 0.0f);
  if (col + 1 < args.n) c[1] = args.alpha * v1 + (args.beta != 0.0f ? args.beta * c[1] : 0.0f);
}

/// C allows 8-byte stores of pairs of columns (checked once per kernel).
template <class T>
__device__ __forceinline__ bool pair_stores_allowed(const cudalabs::GemmArgsOf<T>& args) {
  return reinterpret_cast<std::uintptr_t>(args.c) % 8 == 0 && args.ldc % 2 == 0;
}

/// The first 1024-byte boundary in dynamic shared memory (the swizzle repeats every 1024 bytes).
/// An offset from `dynamic_shared` rather than a rounded integer: the compiler then still knows the
/// result points into shared memory, so the stages' stores are st.shared, which no global load can
/// alias, and the element loads of one chunk need not wait for the last chunk's store.
__device__ __forceinline__ unsigned char* aligned_shared(unsigned char* dynamic_shared) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(dynamic_shared));
  return dynamic_shared + ((1024u - (address & 1023u)) & 1023u);
}

/// Sets a warpgroup's accumulators to zero.
template <int kCount>
__device__ __forceinline__ void zero(float (&acc)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) acc[i] = 0.0f;
}

/// Stores a warpgroup's m64nN accumulators (rows row0 .. row0 + 63) into C.
template <int kN>
__device__ __forceinline__ void store_warpgroup_tile(const cudalabs::Bf16GemmArgs& args,
                                                     const float (&acc)[kN / 2], int row0, int col0,
                                                     bool pairs) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row = row0 + 16 * warp + lane / 4;
#pragma unroll
  for (int j = 0; j < kN / 8; ++j) {
    const int col = col0 + 8 * j + 2 * (lane % 4);
    store_pair(args, row, col, acc[4 * j], acc[4 * j + 1], pairs);
    store_pair(args, row + 8, col, acc[4 * j + 2], acc[4 * j + 3], pairs);
  }
}

}  // namespace lab11
