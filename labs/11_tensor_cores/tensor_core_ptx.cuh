/// @file labs/11_tensor_cores/tensor_core_ptx.cuh
/// @brief Thin wrappers over the PTX instructions lab 11 uses: ldmatrix (compute capability 7.5+),
/// mma.sync (FP16: 7.5+, BF16: 8.0+), and Hopper's mbarrier, TMA, wgmma and setmaxnreg (sm_90a).
///
/// Each wrapper is one instruction, so that a kernel reads as the algorithm and the handout can
/// point at the PTX ISA section of each. They are given, not a TODO: the lab is about where the
/// data goes, not about inline-assembly syntax.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

// Which tensor-core instructions the device code being compiled may use. Each kernel of the lab
// compiles its body only where its instructions exist (the skeleton's kernels carry the guard), so
// that every rung builds for every architecture; the launchers refuse a GPU that lacks them.

/// 1 in device code for compute capability 7.0 and newer: FP16 WMMA fragments.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define LAB11_FP16_TENSOR_CORES 1
#else
#define LAB11_FP16_TENSOR_CORES 0
#endif

/// 1 in device code for compute capability 7.5 and newer: ldmatrix and FP16 mma.sync.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
#define LAB11_FP16_MMA_SYNC 1
#else
#define LAB11_FP16_MMA_SYNC 0
#endif

/// 1 in device code for compute capability 8.0 and newer: BF16 WMMA fragments and mma.sync.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define LAB11_BF16_TENSOR_CORES 1
#else
#define LAB11_BF16_TENSOR_CORES 0
#endif

/// 1 in device code compiled for sm_90a, the only target with Hopper's warpgroup instructions (the
/// "a" is for architecture-specific: no other GPU runs that code); 0 elsewhere.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LAB11_HOPPER_DEVICE_CODE 1
#else
#define LAB11_HOPPER_DEVICE_CODE 0
#endif

namespace lab11::ptx {

/// The address `pointer` has in the shared-memory window, as the instructions below take it.
__device__ __forceinline__ std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// ---- Compute capability 7.5+: ldmatrix, FP16 mma.sync; 8.0+: BF16 mma.sync (cp.async is
// common/async_copy.cuh's) ----

/// ldmatrix.x4: four 8 x 8 matrices of 16-bit elements from shared memory. Lanes 8i .. 8i + 7 give
/// the addresses of matrix i's 8 rows (16 bytes each); every lane gets 2 elements of each matrix,
/// in the layout mma.sync takes its A operand (and, with kTranspose, its B operand from a
/// row-major tile).
template <bool kTranspose>
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&fragment)[4],
                                            std::uint32_t row_address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  if constexpr (kTranspose) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(fragment[0]), "=r"(fragment[1]), "=r"(fragment[2]), "=r"(fragment[3])
                 : "r"(row_address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(fragment[0]), "=r"(fragment[1]), "=r"(fragment[2]), "=r"(fragment[3])
                 : "r"(row_address));
  }
#endif
}

/// movmatrix: an 8 x 8 matrix of 16-bit elements transposed across the warp, in registers. Lane l
/// holds row l / 4, columns 2 (l % 4) + {0, 1} (an accumulator fragment's layout), low half first;
/// it gets the same place of the transpose: row l / 4 of the result is column l / 4 of the input.
__device__ __forceinline__ std::uint32_t movmatrix_transpose(std::uint32_t fragment) {
  std::uint32_t transposed = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n"
               : "=r"(transposed)
               : "r"(fragment));
#endif
  return transposed;
}

/// stmatrix.x4: four 8 x 8 matrices of 16-bit elements, held as an accumulator fragment is
/// (register i: matrix i's row l / 4, columns 2 (l % 4) + {0, 1}), stored row by row: row j of
/// matrix i (16 bytes) to the address lane 8 i + j gives; with kTranspose column j instead. One
/// instruction for what four 4-byte stores a lane (and with kTranspose a movmatrix each) do.
template <bool kTranspose>
__device__ __forceinline__ void stmatrix_x4(const std::uint32_t (&fragment)[4],
                                            std::uint32_t row_address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kTranspose) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
                 :
                 : "r"(row_address), "r"(fragment[0]), "r"(fragment[1]), "r"(fragment[2]),
                   "r"(fragment[3])
                 : "memory");
  } else {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                 :
                 : "r"(row_address), "r"(fragment[0]), "r"(fragment[1]), "r"(fragment[2]),
                   "r"(fragment[3])
                 : "memory");
  }
#endif
}

/// Two FP32 values rounded to a BF16 pair (`low` in the low half), with kRelu negative ones as 0:
/// one cvt, the ReLU in it (rounding keeps the sign, so this is ReLU before rounding).
template <bool kRelu>
__device__ __forceinline__ std::uint32_t bf16_pair(float low, float high) {
  std::uint32_t pair = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kRelu) {
    asm("cvt.rn.relu.bf16x2.f32 %0, %1, %2;\n" : "=r"(pair) : "f"(high), "f"(low));
  } else {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(pair) : "f"(high), "f"(low));
  }
#endif
  return pair;
}

/// One warp-wide D = A * B + D on the tensor cores: A 16 x 16 (row), B 16 x 8 (col), BF16 in,
/// FP32 accumulators. Lane l holds accumulators (l / 4, 2 (l % 4) + {0, 1}) in d[0], d[1] and
/// row l / 4 + 8 in d[2], d[3].
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const std::uint32_t (&a)[4],
                                                  std::uint32_t b0, std::uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

/// One warp-wide D = A * B + D with TF32 A (16 x 8, row) and B (8 x 8, col), FP32 accumulators:
/// lane l holds A (l / 4, l % 4) in a[0], row + 8 in a[1], column + 4 in a[2] and both in a[3];
/// B (l % 4, l / 4) in b0 and row + 4 in b1; D as mma_m16n8k16_bf16's.
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const std::uint32_t (&a)[4],
                                                 std::uint32_t b0, std::uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

/// The same with FP16 A and B: one m16n8k16 on compute capability 8.0 and newer; on 7.5, whose
/// tensor cores take FP16 as m16n8k8, two of those, the first on k 0-7 (a[0], a[1], b0), the second
/// on k 8-15 (a[2], a[3], b1): the registers ldmatrix fills are the same either way.
__device__ __forceinline__ void mma_m16n8k16_fp16(float (&d)[4], const std::uint32_t (&a)[4],
                                                  std::uint32_t b0, std::uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b0));
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

/// `value` rounded to TF32 (10 mantissa bits, to nearest, ties away from zero: cvt.rna.tf32.f32),
/// kept in FP32 bits. The tensor cores ignore the low bits of a TF32 operand; values stored rounded
/// this way are what they multiply exactly.
__device__ __forceinline__ float round_to_tf32(float value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  std::uint32_t bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(value));
  return __uint_as_float(bits);
#else
  return value;
#endif
}

// ---- Hopper (sm_90a): mbarrier, TMA, wgmma, setmaxnreg ----

/// Initialises a shared-memory barrier that completes a phase when `arrivals` threads have
/// arrived (and every byte it expects has landed).
__device__ __forceinline__ void mbarrier_init(std::uint64_t* barrier, int arrivals) {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)),
               "r"(arrivals));
#endif
}

/// Makes barrier initialisation visible to the copy engine (and the other threads, after a
/// __syncthreads()).
__device__ __forceinline__ void fence_barrier_init() {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/// Arrives on `barrier` and tells it that `bytes` more bytes will land in this phase (the TMA
/// copies that follow signal them).
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(std::uint64_t* barrier, int bytes) {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
#endif
}

/// Arrives on `barrier` (one of the arrivals its phase waits for).
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* barrier) {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(barrier))
               : "memory");
#endif
}

/// Waits until the phase of `barrier` with parity `phase` (0 or 1) has completed. A fresh barrier
/// counts its (never run) phase of parity 1 as complete, so producers start by waiting on 1.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* barrier, int phase) {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_again:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_again;\n"
      "}\n" ::"r"(shared_address(barrier)),
      "r"(phase)
      : "memory");
#endif
}

/// TMA: copies the box at (inner, outer) (elements) of the 2-D tensor `map` describes into shared
/// memory at `destination`, swizzled as the map says, zeros where the box leaves the tensor; the
/// bytes are signalled on `barrier`.
__device__ __forceinline__ void tma_load_2d(void* destination, const void* map,
                                            std::uint64_t* barrier, int inner, int outer) {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%3, %4}], [%2];\n" ::"r"(shared_address(destination)),
      "l"(map), "r"(shared_address(barrier)), "r"(inner), "r"(outer)
      : "memory");
#endif
}

/// TMA: the box at (c, w, h, n) (elements; any may be negative) of the 4-D tensor `map` describes
/// into shared memory at `destination`; elements outside the tensor arrive as zeros. The DCGAN's
/// implicit GEMM reads an activation tile shifted by a filter tap this way, its borders for free.
__device__ __forceinline__ void tma_load_4d(void* destination, const void* map,
                                            std::uint64_t* barrier, int c, int w, int h, int n) {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(shared_address(destination)),
      "l"(map), "r"(shared_address(barrier)), "r"(c), "r"(w), "r"(h), "r"(n)
      : "memory");
#endif
}

/// TMA store: the box at `source` in shared memory (laid out and swizzled as the map says) to
/// (c0 .. c4) of the 5-D tensor `map` describes; what lies past the tensor is not written. Joins
/// this thread's current bulk group (bulk_commit_group).
__device__ __forceinline__ void tma_store_5d(const void* map, const void* source, int c0, int c1,
                                             int c2, int c3, int c4) {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile(
      "cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];\n" ::
          "l"(map),
      "r"(shared_address(source)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
      : "memory");
#endif
}

/// Closes this thread's bulk group of TMA stores issued since the last commit.
__device__ __forceinline__ void bulk_commit_group() {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most kPending of this thread's bulk groups still read their shared memory (it
/// may then be overwritten; the global writes may still be on their way).
template <int kPending>
__device__ __forceinline__ void bulk_wait_group_read() {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
#endif
}

/// Waits until at most kPending of this thread's bulk groups are incomplete, writes included.
template <int kPending>
__device__ __forceinline__ void bulk_wait_group() {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

/// Orders this thread's ordinary shared-memory writes before later reads by the tensor cores or
/// the copy engine (the "async proxy").
__device__ __forceinline__ void fence_proxy_async_shared() {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/// A wgmma shared-memory matrix descriptor (PTX ISA, "Asynchronous Warpgroup Level Matrix Shared
/// Memory Layout", "Matrix Descriptor"), 64 bits:
///   bits  0-13  the matrix start address in shared memory, >> 4 (16-byte units);
///   bits 16-29  the leading dimension byte offset (LBO), >> 4;
///   bits 32-45  the stride dimension byte offset (SBO), >> 4;
///   bits 49-51  the matrix base offset: 0 when the swizzle pattern starts at a 1024-byte boundary;
///   bits 62-63  the swizzle mode: 0 none, 1 128-byte (the one this packs), 2 64-byte, 3 32-byte.
/// The byte offsets and the start are given in bytes here; what they measure for each layout is
/// the ISA's section and the skeleton's step 4 to work out.
__device__ __forceinline__ std::uint64_t wgmma_descriptor(std::uint32_t start_address,
                                                          std::uint32_t leading_byte_offset,
                                                          std::uint32_t stride_byte_offset) {
  std::uint64_t descriptor = 0;
  descriptor |= static_cast<std::uint64_t>((start_address & 0x3FFFF) >> 4);
  descriptor |= static_cast<std::uint64_t>((leading_byte_offset & 0x3FFFF) >> 4) << 16;
  descriptor |= static_cast<std::uint64_t>((stride_byte_offset & 0x3FFFF) >> 4) << 32;
  descriptor |= std::uint64_t{1} << 62;  // 128-byte swizzle
  return descriptor;
}

/// Waits at named barrier `id` (1 .. 15: 0 is __syncthreads's) until kThreads threads (a multiple
/// of 32, this one's warp among them) have arrived there: a barrier for part of a block.
template <int kThreads>
__device__ __forceinline__ void named_barrier_sync(int id) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(kThreads) : "memory");
}

/// Arrives at named barrier `id` of kThreads threads without waiting (a producer's signal to the
/// warps that wait there with named_barrier_sync).
template <int kThreads>
__device__ __forceinline__ void named_barrier_arrive(int id) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "n"(kThreads) : "memory");
}

/// Must precede the first wgmma of a group whose accumulators other instructions touched.
__device__ __forceinline__ void wgmma_fence() {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/// Closes the group of wgmma instructions issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/// Waits until at most kPending committed wgmma groups of this warpgroup are in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}

/// Keeps the compiler from moving accumulator reads or writes across an asynchronous wgmma.
template <int kCount>
__device__ __forceinline__ void wgmma_hold(float (&d)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/// Raises (kIncrease) or lowers this warpgroup's register budget to kRegisters per thread: the
/// producer of a warp-specialised kernel gives its registers to the consumers.
template <int kRegisters, bool kIncrease>
__device__ __forceinline__ void set_max_registers() {
#if LAB11_HOPPER_DEVICE_CODE
  if constexpr (kIncrease) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
  } else {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
  }
#endif
}

}  // namespace lab11::ptx

#include "wgmma_instructions.cuh"
