// Lab 11 solution: the GEMM on tensor cores, one rung per step (the handout walks through them).
//  1. wmma_global: the WMMA API, fragments straight from global memory.
//  2. wmma_pipelined: shared tiles shared by 8 warps, cp.async three stages deep.
//  3. mma_swizzled: mma.sync and ldmatrix, the 128-byte swizzle against bank conflicts.
//  4. wgmma: Hopper's warpgroup MMA reading shared memory through descriptors.
//  5. tma_wgmma: the copy engine fills the stages, an mbarrier says when.
//  6. warp_specialized: producer and consumer warpgroups, setmaxnreg, a persistent grid.
//  7. subpixel_wgmma: the DCGAN's transposed convolutions as implicit GEMMs on step 6's kernel.
#include "hopper_kernels.cuh"
#include "lab.h"
#include "mma_kernel.cuh"
#include "subpixel_kernel.cuh"
#include "wmma_kernels.cuh"

#include "launch.cuh"

#include "dcgan_launch.cuh"
