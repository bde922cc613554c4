// Split-K in one launch. `best` runs a GEMM whose tiles would leave SMs idle (a large K over a
// small C) as gridDim.z slices of K: block (x, y, z) computes tile x of the product of A's columns
// and B's rows k0 .. k0 + k_slice_length - 1, k0 = z * k_slice_length (tiles.h), into slice z of a
// workspace that args.c points to (args.m rows of args.ldc floats per slice), and one more kernel
// sums the slices (split_k.cuh). A kernel that starts with `args = k_slice_of_block(args);` needs
// nothing else: its slice is a GEMM like any other. The kernels do so only in their kSlicedK
// instantiation: the slice's pointers and K then live in registers instead of the constant bank,
// which costs registers (ptxas: wide_256x128 236 instead of 232, wide_128x128 a 40-byte spill).
#pragma once

#include "common/gemm_types.h"
#include "tiles.h"

namespace lab07 {

/// This block's GEMM: slice blockIdx.z of args (all of it on a grid of one slice).
__device__ __forceinline__ cudalabs::GemmArgs k_slice_of_block(cudalabs::GemmArgs args) {
  if (gridDim.z == 1) return args;
  const int length = k_slice_length(args.k, static_cast<int>(gridDim.z));
  const int k0 = static_cast<int>(blockIdx.z) * length;
  args.a += k0;
  args.b += static_cast<long long>(k0) * args.ldb;
  args.c += static_cast<long long>(blockIdx.z) * args.m * args.ldc;
  args.k = min(length, args.k - k0);
  return args;
}

}  // namespace lab07
