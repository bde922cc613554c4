// Lab 11's DCGAN on tensor cores, the layers too narrow or too small for a tensor-core tile (given
// code, the same in both builds): the linear layer's tail, which stores the first transposed
// convolution's BF16 input, and the RGB layer, whose 3 output channels would fill 3 of a tile's 64
// columns.
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "dcgan_layers.h"
#include "labs/09_dcgan/subpixel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace lab11 {
namespace {

using cudalabs::dcgan::TconvShape;
namespace subpixel = lab09::subpixel;

__global__ void scale_shift_relu_kernel(const float* __restrict__ in, long long count, int period,
                                        const float* __restrict__ scale,
                                        const float* __restrict__ shift,
                                        __nv_bfloat16* __restrict__ out) {
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int j = static_cast<int>(e % period);
    out[e] = __float2bfloat16_rn(fmaxf(in[e] * scale[j] + shift[j], 0.0f));
  }
}

// One warp per (image, input row i, phase, 32 input columns): lane j computes output pixel
// (2 i + py, 2 j + px), all kK channels. Every lane of a warp reads the same tap of the packed
// filter in shared memory (one phase per warp), so those reads are broadcasts; each lane reads
// its input pixel's channels 8 at a time (16 bytes).
template <int kK>
__global__ void rgb_kernel(TconvShape shape, const __nv_bfloat16* __restrict__ input,
                           const float* __restrict__ packed, const float* __restrict__ bias,
                           float* __restrict__ output) {
  extern __shared__ float filter[];
  const int c_in = shape.in_channels;
  for (int e = threadIdx.x; e < 25 * c_in * kK; e += blockDim.x) filter[e] = packed[e];
  __syncthreads();
  const int warps = blockDim.x / 32, lane = threadIdx.x % 32;
  const int chunks = (shape.width + 31) / 32;
  const long long units = static_cast<long long>(shape.batch) * shape.height * 4 * chunks;
  for (long long u = blockIdx.x * static_cast<long long>(warps) + threadIdx.x / 32; u < units;
       u += static_cast<long long>(gridDim.x) * warps) {
    const int chunk = static_cast<int>(u % chunks);
    const int z = static_cast<int>(u / chunks % 4);
    const int i = static_cast<int>(u / chunks / 4 % shape.height);
    const long long n = u / chunks / 4 / shape.height;
    const int j = chunk * 32 + lane;
    const int py = subpixel::phase_row(z), px = subpixel::phase_col(z);
    const float* phase_filter = filter + subpixel::phase_start(z, c_in, kK);
    float acc[kK] = {};
    for (int ty = 0; ty < subpixel::taps(py); ++ty) {
      const int ii = i + subpixel::input_offset(py, ty);
      if (ii < 0 || ii >= shape.height) continue;  // the same for the whole warp
      for (int tx = 0; tx < subpixel::taps(px); ++tx) {
        const int jj = j + subpixel::input_offset(px, tx);
        const bool inside = j < shape.width && jj >= 0 && jj < shape.width;
        const __nv_bfloat16* pixel = input + ((n * shape.height + ii) * shape.width + jj) * c_in;
        const float* taps = phase_filter + (ty * subpixel::taps(px) + tx) * c_in * kK;
        for (int c0 = 0; c0 < c_in; c0 += 8) {
          uint4 raw = make_uint4(0, 0, 0, 0);
          if (inside) raw = *reinterpret_cast<const uint4*>(pixel + c0);
          const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const float2 x = __bfloat1622float2(pairs[q]);
#pragma unroll
            for (int k = 0; k < kK; ++k) {
              acc[k] = fmaf(x.x, taps[(c0 + 2 * q) * kK + k], acc[k]);
              acc[k] = fmaf(x.y, taps[(c0 + 2 * q + 1) * kK + k], acc[k]);
            }
          }
        }
      }
    }
    if (j >= shape.width) continue;
    float* out =
        output + ((n * 2 * shape.height + 2 * i + py) * 2 * shape.width + 2 * j + px) * kK;
#pragma unroll
    for (int k = 0; k < kK; ++k) out[k] = tanhf(acc[k] + bias[k]);
  }
}

template <int kK>
void launch_rgb(const TconvShape& shape, const __nv_bfloat16* input, const float* packed,
                const float* bias, float* output, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const std::size_t shared = sizeof(float) * 25 * shape.in_channels * kK;
  const long long units = static_cast<long long>(shape.batch) * shape.height * 4 *
                          cudalabs::ceil_div(shape.width, 32);
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const long long blocks =
      std::min<long long>(cudalabs::ceil_div<long long>(units, kThreads / 32), 8LL * sms);
  rgb_kernel<kK><<<static_cast<unsigned>(blocks), kThreads, shared, stream>>>(shape, input, packed,
                                                                             bias, output);
  CUDA_CHECK_LAUNCH("lab11 rgb_kernel");
}

}  // namespace

void tconv_rgb_bf16_input(const TconvShape& shape, const __nv_bfloat16* input,
                          const float* packed_filter, const float* bias, float* output,
                          cudaStream_t stream) {
  cudalabs::dcgan::validate(shape, "lab11 tconv_rgb_bf16_input");
  if (shape.in_channels % 8 != 0)
    throw std::invalid_argument("lab11 tconv_rgb_bf16_input: in_channels = " +
                                std::to_string(shape.in_channels) + " is not a multiple of 8");
  if (sizeof(float) * 25 * shape.in_channels * shape.out_channels > 48 * 1024)
    throw std::invalid_argument("lab11 tconv_rgb_bf16_input: in_channels = " +
                                std::to_string(shape.in_channels) +
                                " leaves the filter larger than 48 KiB");
  if (reinterpret_cast<std::uintptr_t>(input) % 16 != 0)
    throw std::invalid_argument("lab11 tconv_rgb_bf16_input: the input is not 16-byte aligned");
  switch (shape.out_channels) {
    case 1:
      return launch_rgb<1>(shape, input, packed_filter, bias, output, stream);
    case 2:
      return launch_rgb<2>(shape, input, packed_filter, bias, output, stream);
    case 3:
      return launch_rgb<3>(shape, input, packed_filter, bias, output, stream);
    case 4:
      return launch_rgb<4>(shape, input, packed_filter, bias, output, stream);
    default:
      throw std::invalid_argument("lab11 tconv_rgb_bf16_input: out_channels = " +
                                  std::to_string(shape.out_channels) + " is outside 1 .. 4");
  }
}

void scale_shift_relu_to_bf16(const float* in, long long count, int period, const float* scale,
                              const float* shift, __nv_bfloat16* out, cudaStream_t stream) {
  if (count < 1 || period < 1)
    throw std::invalid_argument("lab11 scale_shift_relu_to_bf16: count = " +
                                std::to_string(count) + ", period = " + std::to_string(period) +
                                " (both must be >= 1)");
  const long long blocks = std::min<long long>(cudalabs::ceil_div<long long>(count, 256), 65535);
  scale_shift_relu_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(in, count, period,
                                                                             scale, shift, out);
  CUDA_CHECK_LAUNCH("lab11 scale_shift_relu_kernel");
}

}  // namespace lab11
