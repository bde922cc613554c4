// Split-K for `best`, on any of the lab's kernels: a GEMM whose tiles leave SMs idle (a large K
// over a small C) runs as `splits` GEMMs, each over one slice of K (A's columns k0 .. k1 and B's
// rows k0 .. k1) into a slice of a workspace, on streams of their own so that they share the GPU;
// one more kernel sums the slices in a fixed order (the result does not depend on which slice
// finished first) and applies alpha and beta. The workspace comes from the stream-ordered
// allocator, so concurrent callers never share it. It starts as the poison pattern (all bits set),
// and an element some slice left unwritten stays unwritten in C: a kernel that writes nothing (a
// TODO) is still reported as not implemented rather than as wrong.
#pragma once

#include "best_plan.h"
#include "common/cuda_check.h"
#include "common/gemm_device.cuh"
#include "common/gemm_types.h"

#include <array>
#include <mutex>

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

// Streams of this device for the slices, created once per device and reused by every call.
const std::array<cudaStream_t, kMaxSplits>& slice_streams() {
  static std::mutex mutex;
  static std::array<cudaStream_t, kMaxSplits> streams[64];
  static bool created[64] = {};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device >= 64) throw std::runtime_error("lab07 split-K: device index beyond 63");
  const std::lock_guard<std::mutex> lock(mutex);
  if (!created[device]) {
    for (cudaStream_t& s : streams[device])
      CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    created[device] = true;
  }
  return streams[device];
}

// Runs args as `splits` slices of slice_k along K with launch_slice (a launcher of the lab), then
// sums them into C.
template <class Launch>
void launch_split_k(const cudalabs::GemmArgs& args, int slice_k, Launch launch_slice,
                    cudaStream_t stream) {
  const int splits = (args.k + slice_k - 1) / slice_k;
  if (splits > kMaxSplits || slice_k % 4 != 0) throw std::logic_error("lab07 split-K: bad plan");
  const int ldw = (args.n + 3) / 4 * 4;  // slices keep 128-bit stores
  const long long slice_floats = static_cast<long long>(args.m) * ldw;
  float* workspace = nullptr;
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&workspace),
                             sizeof(float) * slice_floats * splits, stream));
  CUDA_CHECK(cudaMemsetAsync(workspace, 0xFF, sizeof(float) * slice_floats * splits, stream));
  const auto& streams = slice_streams();
  cudaEvent_t ready, done[kMaxSplits];
  CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventRecord(ready, stream));
  for (int s = 0; s < splits; ++s) {
    const int k0 = s * slice_k;
    cudalabs::GemmArgs slice = args;
    slice.k = std::min(slice_k, args.k - k0);
    slice.a = args.a + k0;
    slice.b = args.b + static_cast<long long>(k0) * args.ldb;
    slice.c = workspace + s * slice_floats;
    slice.ldc = ldw;
    slice.alpha = 1.0f;
    slice.beta = 0.0f;
    CUDA_CHECK(cudaStreamWaitEvent(streams[s], ready, 0));
    launch_slice(slice, streams[s]);
    CUDA_CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(done[s], streams[s]));
    CUDA_CHECK(cudaStreamWaitEvent(stream, done[s], 0));
  }
  const long long count = static_cast<long long>(args.m) * args.n;
  const int blocks = static_cast<int>(std::min<long long>((count + 255) / 256, 65535));
  sum_slices_kernel<<<blocks, 256, 0, stream>>>(args, workspace, splits, slice_floats, ldw);
  CUDA_CHECK_LAUNCH("lab07 sum_slices_kernel");
  CUDA_CHECK(cudaFreeAsync(workspace, stream));
  // Destroying a recorded event is safe: it is released once the work it waits for completes.
  CUDA_CHECK(cudaEventDestroy(ready));
  for (int s = 0; s < splits; ++s) CUDA_CHECK(cudaEventDestroy(done[s]));
}

}  // namespace
}  // namespace lab07
