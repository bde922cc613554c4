// Lab 11 solution: the GEMM on tensor cores, one rung per step (the handout walks through them).
// The core:
//  1. wmma_global: the WMMA API, fragments straight from global memory (wmma_kernels.cuh).
//  2. wmma_pipelined: shared tiles shared by 8 warps, cp.async three stages deep (given code:
//     labs/11_tensor_cores/wmma_pipelined.cuh).
//  3. mma_swizzled: mma.sync and ldmatrix, the 128-byte swizzle against bank conflicts
//     (swizzled_tiles.cuh: the layout and its stages, written once for steps 3 and 4;
//     mma_kernel.cuh).
//  4. wgmma: Hopper's warpgroup MMA reading shared memory through descriptors (wgmma_kernel.cuh).
//  1h, 3h: steps 1 and 3 with FP16 inputs, for compute capability 7.5: the same bodies.
// The kernels of steps 1, 1h, 3 and 3h are given (labs/11_tensor_cores/core_kernels.cuh).
#include "core_kernels.cuh"
#include "lab.h"
#include "mma_kernel.cuh"
#include "wgmma_kernel.cuh"
#include "wmma_kernels.cuh"

// ---- The optional challenge: steps 5 to 7 ----
//  5. tma_wgmma: the copy engine fills the stages, an mbarrier says when (hopper_kernels.cuh).
//  6. warp_specialized: producer and consumer warpgroups, setmaxnreg, a persistent grid.
//  7. subpixel_wgmma: the DCGAN's transposed convolutions as implicit GEMMs on step 6's kernel
//     (subpixel_kernel.cuh).
#include "hopper_kernels.cuh"
#include "subpixel_kernel.cuh"

#include "launch.cuh"

#include "dcgan_launch.cuh"
