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

// The RGB layer's work is cut into warp units of one phase: 16 consecutive input pixels of one
// row. Lane l takes the channels 8 (l % 8) .. 8 (l % 8) + 7 (and every 64th after) of pixels
// l / 8, l / 8 + 4, l / 8 + 8 and l / 8 + 12, so that each of its 16-byte loads is part of one
// contiguous 512-byte read by the warp (4 whole pixels). The packed filter sits in shared memory as
// one float4 per (tap, input channel), its channels padded to 4, and serves 4 pixels' FMAs per
// read. The 8 lanes of a pixel add their partial sums with shuffles at the end.
constexpr int kRgbPixels = 4;                 // pixels per lane
constexpr int kRgbUnitPixels = 4 * kRgbPixels;  // consecutive pixels per warp unit
constexpr int kRgbChunkLanes = 8;             // lanes sharing one pixel, 8 channels each

template <int kK>
__global__ void rgb_kernel(TconvShape shape, const __nv_bfloat16* __restrict__ input,
                           const float* __restrict__ packed, const float* __restrict__ bias,
                           float* __restrict__ output) {
  extern __shared__ float4 filter[];  // [tap 0..24][c], taps of phase 0 first
  const int c_in = shape.in_channels;
  for (int e = threadIdx.x; e < 25 * c_in; e += blockDim.x) {
    float v[4] = {};
#pragma unroll
    for (int k = 0; k < kK; ++k) v[k] = packed[static_cast<std::size_t>(e) * kK + k];
    filter[e] = make_float4(v[0], v[1], v[2], v[3]);
  }
  __syncthreads();
  const int warps = blockDim.x / 32, lane = threadIdx.x % 32;
  const int slot = lane / kRgbChunkLanes, chunk = lane % kRgbChunkLanes;
  const int groups = (shape.width + kRgbUnitPixels - 1) / kRgbUnitPixels;
  const long long units = static_cast<long long>(shape.batch) * shape.height * 4 * groups;
  for (long long u = blockIdx.x * static_cast<long long>(warps) + threadIdx.x / 32; u < units;
       u += static_cast<long long>(gridDim.x) * warps) {
    const int j0 = static_cast<int>(u % groups) * kRgbUnitPixels + slot;
    const int z = static_cast<int>(u / groups % 4);
    const int i = static_cast<int>(u / groups / 4 % shape.height);
    const long long n = u / groups / 4 / shape.height;
    const int py = subpixel::phase_row(z), px = subpixel::phase_col(z);
    const float4* phase_filter = filter + subpixel::phase_start(z, 1, 1) * c_in;
    float acc[kRgbPixels][kK] = {};
    for (int ty = 0; ty < subpixel::taps(py); ++ty) {
      const int ii = i + subpixel::input_offset(py, ty);
      if (ii < 0 || ii >= shape.height) continue;  // the same for the whole warp
      const __nv_bfloat16* row = input + (n * shape.height + ii) * shape.width * c_in;
      for (int tx = 0; tx < subpixel::taps(px); ++tx) {
        const int jj0 = j0 + subpixel::input_offset(px, tx);
        const float4* taps = phase_filter + (ty * subpixel::taps(px) + tx) * c_in;
        for (int c0 = 8 * chunk; c0 < c_in; c0 += 8 * kRgbChunkLanes) {
          float x[kRgbPixels][8];
#pragma unroll
          for (int p = 0; p < kRgbPixels; ++p) {
            const int jj = jj0 + 4 * p;
            uint4 raw = make_uint4(0, 0, 0, 0);
            if (jj >= 0 && jj < shape.width)
              raw = *reinterpret_cast<const uint4*>(row + static_cast<long long>(jj) * c_in + c0);
            const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
            for (int q = 0; q < 4; ++q) {
              const float2 v = __bfloat1622float2(pairs[q]);
              x[p][2 * q] = v.x;
              x[p][2 * q + 1] = v.y;
            }
          }
#pragma unroll
          for (int e = 0; e < 8; ++e) {
            const float4 f4 = taps[c0 + e];
            const float f[4] = {f4.x, f4.y, f4.z, f4.w};
#pragma unroll
            for (int p = 0; p < kRgbPixels; ++p) {
#pragma unroll
              for (int k = 0; k < kK; ++k) acc[p][k] = fmaf(x[p][e], f[k], acc[p][k]);
            }
          }
        }
      }
    }
    // The 8 lanes of a pixel hold sums over their channels: add them up.
#pragma unroll
    for (int p = 0; p < kRgbPixels; ++p) {
#pragma unroll
      for (int k = 0; k < kK; ++k) {
#pragma unroll
        for (int offset = 1; offset < kRgbChunkLanes; offset *= 2)
          acc[p][k] += __shfl_xor_sync(0xFFFFFFFFu, acc[p][k], offset);
      }
    }
    if (chunk >= kK) continue;  // lane chunk writes channel chunk of its 4 pixels
#pragma unroll
    for (int p = 0; p < kRgbPixels; ++p) {
      const int j = j0 + 4 * p;
      if (j >= shape.width) continue;
      float value = acc[p][0];
#pragma unroll
      for (int k = 1; k < kK; ++k) value = chunk == k ? acc[p][k] : value;
      output[((n * 2 * shape.height + 2 * i + py) * 2 * shape.width + 2 * j + px) * kK + chunk] =
          tanhf(value + bias[chunk]);
    }
  }
}

template <int kK>
void launch_rgb(const TconvShape& shape, const __nv_bfloat16* input, const float* packed,
                const float* bias, float* output, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const std::size_t shared = sizeof(float4) * 25 * shape.in_channels;
  const long long units = static_cast<long long>(shape.batch) * shape.height * 4 *
                          cudalabs::ceil_div(shape.width, kRgbUnitPixels);
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
  if (sizeof(float4) * 25 * shape.in_channels > 48 * 1024)
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
