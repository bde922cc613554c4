// Lab 11's DCGAN on tensor cores, the layers too narrow or too small for a tensor-core tile (given
// code, the same in both builds): the linear layer's tail, which stores the first transposed
// convolution's BF16 input, and the RGB layer, whose 3 output channels would fill 3 of a wgmma
// tile's 64 columns (it takes mma.sync's 8 instead).
#include "common/compute_precision.h"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "dcgan_layers.h"
#include "labs/09_dcgan/subpixel.h"
#include "tensor_core_ptx.cuh"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace lab11 {
namespace {

using cudalabs::dcgan::TconvShape;
namespace subpixel = lab09::subpixel;

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

// The RGB layer on mma.sync m16n8k16: a warp unit is one phase's 16 consecutive input pixels of
// one row (the tile's 16 rows), its 8 columns the output channels (3 used: a quarter of the
// tensor cores' work is wasted, which costs less than FP32 FMAs would). The sum over (tap,
// channel) is permuted within each 32 channels so that a lane's A values are contiguous: in the
// pair of k16 steps 2m, 2m + 1, lane c of a quad holds channels 32 m + 8 c .. + 7, loaded as one
// 16-byte read (its first 4 for step 2m, the last 4 for 2m + 1), and the quad reads 64 contiguous
// bytes of the pixel. B's fragments, in the same order, are built once per block in shared memory
// (one 8-byte read per lane and step, no bank conflicts).
constexpr int kRgbUnitPixels = 16;  // the mma's 16 rows

__device__ __forceinline__ std::uint32_t bf16_pair(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const std::uint32_t*>(&pair);
}

__global__ void rgb_kernel(TconvShape shape, const __nv_bfloat16* __restrict__ input,
                           const float* __restrict__ packed, const float* __restrict__ bias,
                           float* __restrict__ output) {
  extern __shared__ uint2 fragments[];  // [tap 0..24][k16 step][lane]
  const int c_in = shape.in_channels, k_out = shape.out_channels, steps = c_in / 16;
  for (int e = threadIdx.x; e < 25 * steps * 32; e += blockDim.x) {
    const int l = e % 32, step = e / 32 % steps, tap = e / 32 / steps;
    const int n = l / 4, c0 = 32 * (step / 2) + 8 * (l % 4) + 4 * (step % 2);
    const auto w = [&](int c) {
      return n < k_out ? packed[(static_cast<std::size_t>(tap) * c_in + c) * k_out + n] : 0.0f;
    };
    fragments[e] = make_uint2(bf16_pair(w(c0), w(c0 + 1)), bf16_pair(w(c0 + 2), w(c0 + 3)));
  }
  __syncthreads();
  const int warps = blockDim.x / 32, lane = threadIdx.x % 32;
  const int groups = (shape.width + kRgbUnitPixels - 1) / kRgbUnitPixels;
  const long long units = static_cast<long long>(shape.batch) * shape.height * 4 * groups;
  for (long long u = blockIdx.x * static_cast<long long>(warps) + threadIdx.x / 32; u < units;
       u += static_cast<long long>(gridDim.x) * warps) {
    const int j0 = static_cast<int>(u % groups) * kRgbUnitPixels;
    const int z = static_cast<int>(u / groups % 4);
    const int i = static_cast<int>(u / groups / 4 % shape.height);
    const long long n = u / groups / 4 / shape.height;
    const int py = subpixel::phase_row(z), px = subpixel::phase_col(z);
    const int first_tap = subpixel::phase_start(z, 1, 1);
    float acc[4] = {};
    for (int ty = 0; ty < subpixel::taps(py); ++ty) {
      const int ii = i + subpixel::input_offset(py, ty);
      if (ii < 0 || ii >= shape.height) continue;  // the same for the whole warp
      const __nv_bfloat16* row = input + (n * shape.height + ii) * shape.width * c_in;
      for (int tx = 0; tx < subpixel::taps(px); ++tx) {
        const int tap = first_tap + ty * subpixel::taps(px) + tx;
        // This lane's two rows of A: pixels j0 + lane / 4 and j0 + lane / 4 + 8, shifted by the
        // tap.
        const int jj0 = j0 + lane / 4 + subpixel::input_offset(px, tx), jj1 = jj0 + 8;
        const bool in0 = jj0 >= 0 && jj0 < shape.width, in1 = jj1 >= 0 && jj1 < shape.width;
        const __nv_bfloat16* pixel0 = row + static_cast<long long>(jj0) * c_in + 8 * (lane % 4);
        const __nv_bfloat16* pixel1 = row + static_cast<long long>(jj1) * c_in + 8 * (lane % 4);
        const uint2* b = fragments + static_cast<std::size_t>(tap) * steps * 32 + lane;
        for (int m = 0; m < steps / 2; ++m) {
          const uint4 r0 = in0 ? *reinterpret_cast<const uint4*>(pixel0 + 32 * m) : uint4{};
          const uint4 r1 = in1 ? *reinterpret_cast<const uint4*>(pixel1 + 32 * m) : uint4{};
          const std::uint32_t a_even[4] = {r0.x, r1.x, r0.y, r1.y};
          const std::uint32_t a_odd[4] = {r0.z, r1.z, r0.w, r1.w};
          const uint2 b_even = b[(2 * m) * 32], b_odd = b[(2 * m + 1) * 32];
          ptx::mma_m16n8k16_bf16(acc, a_even, b_even.x, b_even.y);
          ptx::mma_m16n8k16_bf16(acc, a_odd, b_odd.x, b_odd.y);
        }
      }
    }
    // acc: rows lane / 4 and lane / 4 + 8, output channels 2 (lane % 4) and 2 (lane % 4) + 1.
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int j = j0 + lane / 4 + 8 * half;
      if (j >= shape.width) continue;
      float* out =
          output + ((n * 2 * shape.height + 2 * i + py) * 2 * shape.width + 2 * j + px) * k_out;
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const int k = 2 * (lane % 4) + q;
        if (k < k_out) out[k] = tanhf(acc[2 * half + q] + bias[k]);
      }
    }
  }
}

void launch_rgb(const TconvShape& shape, const __nv_bfloat16* input, const float* packed,
                const float* bias, float* output, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const std::size_t shared = sizeof(uint2) * 25 * (shape.in_channels / 16) * 32;
  const long long units = static_cast<long long>(shape.batch) * shape.height * 4 *
                          cudalabs::ceil_div(shape.width, kRgbUnitPixels);
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const long long blocks =
      std::min<long long>(cudalabs::ceil_div<long long>(units, kThreads / 32), 8LL * sms);
  rgb_kernel<<<static_cast<unsigned>(blocks), kThreads, shared, stream>>>(shape, input, packed,
                                                                          bias, output);
  CUDA_CHECK_LAUNCH("lab11 rgb_kernel");
}

}  // namespace

void tconv_rgb_bf16_input(const TconvShape& shape, const __nv_bfloat16* input,
                          const float* packed_filter, const float* bias, float* output,
                          cudaStream_t stream) {
  const char* who = "lab11 tconv_rgb_bf16_input";
  cudalabs::dcgan::validate(shape, who);
  if (shape.in_channels % 32 != 0 || shape.in_channels > 96)
    throw std::invalid_argument(std::string(who) +
                                ": in_channels = " + std::to_string(shape.in_channels) +
                                " is not 32, 64 or 96 (B's fragments must fit 48 KiB)");
  if (shape.out_channels > 8)
    throw std::invalid_argument(std::string(who) + ": out_channels = " +
                                std::to_string(shape.out_channels) + " is outside 1 .. 8");
  if (reinterpret_cast<std::uintptr_t>(input) % 16 != 0)
    throw std::invalid_argument(std::string(who) + ": the input is not 16-byte aligned");
  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 8)
    throw std::runtime_error(std::string(who) + ": needs compute capability 8.0 (mma.sync BF16)");
  launch_rgb(shape, input, packed_filter, bias, output, stream);
}

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
