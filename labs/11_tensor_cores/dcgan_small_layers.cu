// Lab 11's DCGAN on tensor cores, small given pieces (the same in both builds): the linear layer's
// tail (its bias, batch norm and ReLU, stored as the first transposed convolution's input) and the
// TF32 kernel's transposed filter.
#include "common/compute_precision.h"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "dcgan_layers.h"
#include "tensor_core_ptx.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lab11 {
namespace {

__device__ __forceinline__ void store_activation(__nv_bfloat16* out, float value) {
  *out = __float2bfloat16_rn(value);
}
__device__ __forceinline__ void store_activation(float* out, float value) {
  *out = ptx::round_to_tf32(value);
}

template <class T>
__global__ void scale_shift_relu_kernel(const float* __restrict__ in, long long count, int period,
                                        const float* __restrict__ scale,
                                        const float* __restrict__ shift, T* __restrict__ out) {
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int j = static_cast<int>(e % period);
    store_activation(out + e, fmaxf(in[e] * scale[j] + shift[j], 0.0f));
  }
}

template <class T>
void launch_scale_shift_relu(const float* in, long long count, int period, const float* scale,
                             const float* shift, T* out, cudaStream_t stream) {
  if (count < 1 || period < 1)
    throw std::invalid_argument("lab11 scale_shift_relu: count = " + std::to_string(count) +
                                ", period = " + std::to_string(period) + " (both must be >= 1)");
  const long long blocks = std::min<long long>(cudalabs::ceil_div<long long>(count, 256), 65535);
  scale_shift_relu_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(in, count, period,
                                                                             scale, shift, out);
  CUDA_CHECK_LAUNCH("lab11 scale_shift_relu_kernel");
}

}  // namespace

void scale_shift_relu(const float* in, long long count, int period, const float* scale,
                      const float* shift, __nv_bfloat16* out, cudaStream_t stream) {
  launch_scale_shift_relu(in, count, period, scale, shift, out, stream);
}

void scale_shift_relu(const float* in, long long count, int period, const float* scale,
                      const float* shift, float* out, cudaStream_t stream) {
  launch_scale_shift_relu(in, count, period, scale, shift, out, stream);
}

std::vector<float> transposed_packed_filter(const std::vector<float>& packed, int in_channels,
                                            int out_channels) {
  const std::size_t rows = static_cast<std::size_t>(25) * in_channels;
  if (packed.size() != rows * out_channels)
    throw std::invalid_argument("lab11 transposed_packed_filter: " + std::to_string(packed.size()) +
                                " values for 25 x " + std::to_string(in_channels) + " x " +
                                std::to_string(out_channels));
  std::vector<float> out(packed.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (int k = 0; k < out_channels; ++k)
      out[k * rows + r] = cudalabs::round_to_precision(packed[r * out_channels + k],
                                                       cudalabs::ComputePrecision::kTf32);
  return out;
}

}  // namespace lab11
