// Lab 11's given core kernels (steps 1, 1h, 3 and 3h): each calls the body you write in kernels.cu,
// and only where the GPU has the instructions it needs (the #if around the call), so that every
// rung builds for every architecture and the driver reports "needs compute capability ..."
// elsewhere. The FP16 rungs run the same bodies as the BF16 ones, with __half.
#pragma once

#include "lab.h"
#include "staging.cuh"
#include "tensor_core_ptx.cuh"
#include "tiles.h"

namespace lab11 {
namespace {

// The bodies, defined in kernels.cu (their contracts are there).
template <class T, bool kAligned>
__device__ __forceinline__ void wmma_global_body(const cudalabs::GemmArgsOf<T>& args);
template <class T, class Tile, bool kAligned>
__device__ __forceinline__ void mma_swizzled_body(const cudalabs::GemmArgsOf<T>& args);

// Step 1: WMMA fragments straight from global memory, in BF16.
template <bool kAligned>
__global__ void __launch_bounds__(WmmaGlobalTile::kThreads)
    wmma_global_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_BF16_TENSOR_CORES
  wmma_global_body<bf16, kAligned>(args);
#endif
  (void)args;
}

// Step 1h: step 1 with FP16 fragments (tensor cores have taken FP16 since compute capability 7.0).
template <bool kAligned>
__global__ void __launch_bounds__(WmmaGlobalTile::kThreads)
    wmma_fp16_kernel(cudalabs::Fp16GemmArgs args) {
#if LAB11_FP16_TENSOR_CORES
  wmma_global_body<fp16, kAligned>(args);
#endif
  (void)args;
}

// Step 3: mma.sync and ldmatrix on swizzled tiles, in BF16.
template <bool kAligned>
__global__ void __launch_bounds__(MmaTile::kThreads)
    mma_swizzled_kernel(cudalabs::Bf16GemmArgs args) {
#if LAB11_BF16_TENSOR_CORES
  mma_swizzled_body<bf16, MmaTile, kAligned>(args);
#endif
  (void)args;
}

// Step 3h: step 3 with FP16 inputs on MmaFp16Tile.
template <bool kAligned>
__global__ void __launch_bounds__(MmaFp16Tile::kThreads)
    mma_fp16_kernel(cudalabs::Fp16GemmArgs args) {
#if LAB11_FP16_MMA_SYNC
  mma_swizzled_body<fp16, MmaFp16Tile, kAligned>(args);
#endif
  (void)args;
}

}  // namespace
}  // namespace lab11
