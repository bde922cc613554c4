// Split-K for `best`: a GEMM whose tiles leave SMs idle (a large K over a small C) runs as one
// launch of gridDim.z slices, each block a tile of one slice of K (k_slice.cuh) written into that
// slice's part of a workspace; one more kernel sums the slices in a fixed order (the result does
// not depend on which slice finished first) and applies alpha and beta. One launch rather than one
// per slice on streams of their own: it measured the same and needs no streams or events. The
// workspace comes from the stream-ordered allocator, so concurrent callers never share it, out of
// the pool that keeps what is freed (common/aligned_operands.cuh): the default pool hands its
// memory back to the driver whenever the device synchronizes, and a split would then pay for a
// fresh allocation at every call. Its first slice starts as the poison pattern (all bits set), and
// an element left unwritten there stays unwritten in C: a kernel that writes nothing (a TODO) is
// still reported as not implemented rather than as wrong.
#pragma once

#include "best_plan.h"
#include "common/aligned_operands.cuh"
#include "common/cuda_check.h"
#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "tiles.h"

#include <stdexcept>

namespace lab07 {
namespace {

// C = alpha * (sum of the slices) + beta * C, one thread per element of C.
__global__ void sum_slices_kernel(cudalabs::GemmArgs args, const float* __restrict__ slices,
                                  int slice_count, long long slice_floats, int ldw) {
  const long long count = static_cast<long long>(args.m) * args.n;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int row = static_cast<int>(e / args.n), col = static_cast<int>(e % args.n);
    const float* partial = slices + static_cast<long long>(row) * ldw + col;
    float sum = 0.0f;
    bool written = true;
    for (int s = 0; s < slice_count; ++s) {
      const float value = partial[s * slice_floats];
      written = written && __float_as_uint(value) != 0xFFFFFFFFu;
      sum += value;
    }
    float* c = args.c + static_cast<long long>(row) * args.ldc + col;
    if (!written) {
      *c = __uint_as_float(0xFFFFFFFFu);
    } else {
      cudalabs::store_gemm_result(c, sum, args.alpha, args.beta);
    }
  }
}

// Runs args as `splits` slices of K with launch_slices(args, splits, stream) (a launcher of the lab
// that sets gridDim.z), then sums them into C.
template <class LaunchSlices>
void launch_split_k(const cudalabs::GemmArgs& args, int splits, LaunchSlices launch_slices,
                    cudaStream_t stream) {
  if (splits < 2 || splits > kMaxSplits ||
      (args.k + k_slice_length(args.k, splits) - 1) / k_slice_length(args.k, splits) != splits)
    throw std::logic_error("lab07 split-K: bad plan");
  const int ldw = (args.n + 3) / 4 * 4;  // slices keep 128-bit stores
  const long long slice_floats = static_cast<long long>(args.m) * ldw;
  float* workspace = nullptr;
  CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&workspace),
                                     sizeof(float) * slice_floats * splits,
                                     cudalabs::scratch_pool(), stream));
  CUDA_CHECK(cudaMemsetAsync(workspace, 0xFF, sizeof(float) * slice_floats, stream));
  cudalabs::GemmArgs slices = args;
  slices.c = workspace;
  slices.ldc = ldw;
  slices.alpha = 1.0f;
  slices.beta = 0.0f;
  launch_slices(slices, splits, stream);
  const long long count = static_cast<long long>(args.m) * args.n;
  const int blocks = static_cast<int>(std::min<long long>((count + 255) / 256, 65535));
  sum_slices_kernel<<<blocks, 256, 0, stream>>>(args, workspace, splits, slice_floats, ldw);
  CUDA_CHECK_LAUNCH("lab07 sum_slices_kernel");
  CUDA_CHECK(cudaFreeAsync(workspace, stream));
}

}  // namespace
}  // namespace lab07
