/// @file labs/11_tensor_cores/lab.h
/// @brief Lab 11 (extension): the GEMM on tensor cores, from WMMA to Hopper's wgmma fed by TMA.
#pragma once

#include "common/gemm_variant.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <span>

/// Lab 11: tensor cores. A and B in BF16, C and the accumulation in FP32,
/// C = alpha * A * B + beta * C, row-major with leading dimensions, any M, N, K >= 1.
namespace lab11 {

/// One rung of the lab's ladder: A and B in BF16. Its `unavailable` says why it cannot run on the
/// current GPU ("needs compute capability 9.0 ..."), so the driver and tests skip it with that.
using TensorCoreVariant = cudalabs::GemmVariantOf<__nv_bfloat16>;

/// The ladder, in the order a student builds it:
/// - `wmma_global`: WMMA fragments loaded straight from global memory, 4 warps of 32 x 32
/// - `wmma_pipelined`: WMMA on 128 x 128 x 32 shared tiles, 3 cp.async stages
/// - `mma_swizzled`: mma.sync m16n8k16 fed by ldmatrix from 128-byte-swizzled shared tiles
///   (128 x 128 x 64, 3 stages): no bank conflicts
/// - `wgmma`: Hopper's warpgroup MMA (m64n128k16) on swizzled tiles described by descriptors,
///   one warpgroup per 64 x 128 tile, cp.async stages (sm_90a)
/// - `tma_wgmma`: the tiles brought by the copy engine (TMA) and an mbarrier pipeline, 128 x 128
///   per warpgroup (sm_90a)
/// - `warp_specialized`: a producer warpgroup feeding two consumer warpgroups (setmaxnreg), a
///   persistent grid walking 128 x 256 tiles in grouped order (sm_90a)
/// - `warp_specialized_128`: the same kernel on 128 x 128 tiles, twice as many (sm_90a)
/// - `warp_specialized_64x128`: the same kernel on 64 x 128 tiles with one consumer warpgroup and
///   twice the stages, the tile `best` runs for a C of few rows (sm_90a)
/// - `best`: on Hopper, the warp-specialized tile whose tiles leave the fewest SMs idle, and where
///   a C of few tiles over a long K would still leave most SMs idle, K cut into slices whose
///   partial Cs the same launch sums (best_plan.h, unit_finish.cuh); where a small GEMM's A or B
///   would need a copy before TMA can read it, the one-launch `wgmma` rung when the model says it
///   is done sooner (one_launch_rung_pays); for a C of at most 8 columns, the few-columns kernel
///   (few_columns.cuh); for a short K, or a long K under a C of few tiles, the short-K kernel
///   (short_k.cuh), K whole or cut into a cluster's slices summed through distributed shared
///   memory, each where the model says it is done sooner; `mma_swizzled` on other GPUs
/// The copies of 16-byte chunks (cp.async, TMA) need A and B 16-byte aligned with lda and ldb
/// multiples of 8. Other operands take element-wise copies (rungs 2-4), or are first repacked into
/// an aligned scratch buffer (the TMA rungs: the documented fallback); every rung is right for any
/// shape.
std::span<const TensorCoreVariant> variants();

/// One of the FP16 rungs: A and B in FP16, C and the accumulation in FP32, for every GPU with
/// tensor cores (compute capability 7.5, T4 and RTX 20, has FP16 but not BF16 ones).
using Fp16TensorCoreVariant = cudalabs::GemmVariantOf<__half>;

/// The FP16 rungs, the first steps of the ladder again for a GPU of compute capability 7.5:
/// - `wmma_fp16`: `wmma_global` with FP16 fragments
/// - `mma_fp16`: `mma_swizzled` with FP16 inputs on 128 x 64 x 64 tiles, 2 stages (49 KiB of
///   shared memory: 7.5 has 64 KiB per SM), m16n8k16 issued as two m16n8k8 on 7.5
/// Their `unavailable` says why a build or GPU cannot run them (a build with no code for 7.5 or
/// newer), so the driver and tests skip them with that.
std::span<const Fp16TensorCoreVariant> fp16_variants();

/// The `best` variant's launcher, for the DCGAN on tensor cores.
void best_gemm(const cudalabs::Bf16GemmArgs& args, cudaStream_t stream);

/// The launch of the kernel that sums `best`'s slices of K into a C of `shape` when it splits K in
/// a stream being captured into a graph (common/slice_sums.cuh; elsewhere the split launch sums
/// them itself), for the checks of every lab's launches (launches.cpp): `best`'s own description
/// gives its GEMM kernel. Throws std::invalid_argument for a bad shape.
cudalabs::KernelLaunch describe_slice_sums(const cudalabs::GemmShape& shape);

}  // namespace lab11

/// Which build of lab 11's kernels this program linked: "student" or "solution".
extern "C" const char* cudalabs_lab11_kernels_build();
