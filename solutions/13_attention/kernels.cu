// Lab 13 solution: softmax and attention. The kernels are in headers, each starting with what its
// rungs do and why: the core's softmax (softmax_kernels.cuh) and FlashAttention on mma.sync
// (attention_kernels.cuh), then the optional challenge's Hopper kernel (flash_wgmma_kernel.cuh).
// Given code in the lab's folder: attention_naive.cuh (the unfused rung), reductions.cuh,
// mma_tiles.cuh (the tensor-core plumbing), tiles.h (the tiles and their layouts), and launch.cuh
// (given) checks the arguments, sizes the grids and the shared memory, says which GPU each rung
// needs and lists the variants.
#include "attention_naive.cuh"
#include "lab.h"
#include "mma_tiles.cuh"
#include "reductions.cuh"
#include "tiles.h"

#include "softmax_kernels.cuh"

#include "attention_kernels.cuh"

// ---- The optional challenge: flash_wgmma, FlashAttention on Hopper's wgmma ----
#include "flash_wgmma_kernel.cuh"

#include "launch.cuh"
