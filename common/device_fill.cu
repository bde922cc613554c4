#include "common/device_fill.h"

#include "common/cuda_check.h"
#include "common/random_fill.h"

#include <algorithm>
#include <type_traits>

namespace cudalabs {
namespace {

constexpr int kThreads = 256;

// Enough blocks to fill the GPU; each thread strides over the array.
unsigned int grid_for(std::size_t count) {
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(std::clamp<std::size_t>(blocks, 1, 65536));
}

template <class T>
__device__ T from_float(float value) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(value);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(value);
  } else {
    return value;
  }
}

template <class T>
__global__ void fill_uniform_kernel(T* data, std::size_t count, std::uint64_t seed, float lo,
                                    float hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    data[i] = from_float<T>(uniform_at(seed, i, lo, hi));
  }
}

template <class T>
__device__ T magnitude_of(T value) {
  if constexpr (std::is_same_v<T, float>) {
    return fabsf(value);
  } else {
    return __habs(value);
  }
}

template <class T>
__global__ void absolute_kernel(const T* in, T* out, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    out[i] = magnitude_of(in[i]);
  }
}

}  // namespace

template <class T>
void fill_uniform_device(T* data, std::size_t count, std::uint64_t seed, cudaStream_t stream,
                         float lo, float hi) {
  if (count == 0) return;
  fill_uniform_kernel<T><<<grid_for(count), kThreads, 0, stream>>>(data, count, seed, lo, hi);
  CUDA_CHECK(cudaGetLastError());
}

template <class T>
void absolute_device(const T* in, T* out, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  absolute_kernel<T><<<grid_for(count), kThreads, 0, stream>>>(in, out, count);
  CUDA_CHECK(cudaGetLastError());
}

template void fill_uniform_device<float>(float*, std::size_t, std::uint64_t, cudaStream_t, float,
                                         float);
template void fill_uniform_device<__nv_bfloat16>(__nv_bfloat16*, std::size_t, std::uint64_t,
                                                 cudaStream_t, float, float);
template void fill_uniform_device<__half>(__half*, std::size_t, std::uint64_t, cudaStream_t, float,
                                          float);
template void absolute_device<float>(const float*, float*, std::size_t, cudaStream_t);
template void absolute_device<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*, std::size_t,
                                             cudaStream_t);
template void absolute_device<__half>(const __half*, __half*, std::size_t, cudaStream_t);

}  // namespace cudalabs
