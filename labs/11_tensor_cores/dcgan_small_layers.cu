// Lab 11's DCGAN on tensor cores, the layers too narrow or too small for a tensor-core tile (given
// code, the same in both builds): the linear layer's tail, which stores the first transposed
// convolution's BF16 input, and the RGB layer, whose 3 output channels would fill 3 of a wgmma
// tile's 64 columns (it takes mma.sync's 8 instead).
#include "common/async_copy.cuh"
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
// tensor cores' work is wasted, which costs less than FP32 FMAs would).
// - A block walks whole images row by row. The input rows it needs (i - 1, i, i + 1) sit in a ring
//   of five shared-memory row buffers; while row i is computed, cp.async brings rows i + 2 and
//   i + 3, so every input row crosses from L2 once per block and its latency hides behind two
//   rows' work. Four small blocks (one warp per phase) share an SM, so one block's barrier waits
//   overlap the others' work.
// - Warp w keeps phase w for its whole life, so that phase's B fragments (every tap and k16
//   step: at most 9 x 6) sit in its registers, built once.
// - The sum over (tap, channel) is permuted within each 32 channels so that a lane's A values are
//   contiguous: in the pair of k16 steps 2m, 2m + 1, lane c of a quad holds channels 32 m + 8 c
//   .. + 7, one 16-byte shared load (its first 4 for step 2m, the last 4 for 2m + 1). A pixel's
//   row in shared memory is padded to 64 bytes past a multiple of 128, so the 8 lanes of each
//   quarter-warp hit distinct banks.
constexpr int kRgbUnitPixels = 16;  // the mma's 16 rows
constexpr int kRgbWarps = 4;        // per block: one warp per phase
constexpr int kRgbRowBuffers = 5;   // rows i - 1, i, i + 1 and the two being fetched

__device__ __forceinline__ std::uint32_t bf16_pair(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const std::uint32_t*>(&pair);
}

// Bytes between two pixels of a row buffer: the pixel's channels, padded to 64 past a multiple
// of 128.
__host__ __device__ inline int rgb_pixel_stride(int c_in) {
  return 2 * c_in + ((64 - 2 * c_in) % 128 + 128) % 128;
}

// Starts copying input row `i` of image `n` into row buffer `buffer` (all threads of the block).
__device__ __forceinline__ void rgb_fetch_row(const TconvShape& shape,
                                              const __nv_bfloat16* __restrict__ input, long long n,
                                              int i, unsigned char* buffer) {
  const int chunks_per_pixel = shape.in_channels / 8, stride = rgb_pixel_stride(shape.in_channels);
  const __nv_bfloat16* row = input + (n * shape.height + i) * shape.width * shape.in_channels;
  for (int e = threadIdx.x; e < shape.width * chunks_per_pixel; e += blockDim.x) {
    const int pixel = e / chunks_per_pixel, chunk = e % chunks_per_pixel;
    cudalabs::async_copy_16_zero_fill(buffer + pixel * stride + 16 * chunk,
                                      row + static_cast<long long>(e) * 8, 16);
  }
}

// Phase z (kTy x kTx taps) for C = 16 kSteps: this warp's units of input row i of image n.
template <int kTy, int kTx, int kSteps>
__device__ __forceinline__ void rgb_row(const TconvShape& shape, int z, const uint2 (&b)[9][kSteps],
                                        const unsigned char* buffers, int buffer_bytes, long long n,
                                        int i, const float* __restrict__ bias,
                                        float* __restrict__ output) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, k_out = shape.out_channels;
  const int py = subpixel::phase_row(z), px = subpixel::phase_col(z);
  const int stride = rgb_pixel_stride(shape.in_channels);
  const int groups = (shape.width + kRgbUnitPixels - 1) / kRgbUnitPixels;
  for (int g = warp / 4; g < groups; g += kRgbWarps / 4) {
    const int j0 = g * kRgbUnitPixels;
    float acc[4] = {};
#pragma unroll
    for (int ty = 0; ty < kTy; ++ty) {
      const int ii = i + subpixel::input_offset(py, ty);
      if (ii < 0 || ii >= shape.height) continue;  // the same for the whole warp
      const unsigned char* row = buffers + (ii % kRgbRowBuffers) * buffer_bytes + 16 * (lane % 4);
#pragma unroll
      for (int tx = 0; tx < kTx; ++tx) {
        // This lane's two rows of A: pixels j0 + lane / 4 and j0 + lane / 4 + 8, shifted by the
        // tap.
        const int jj0 = j0 + lane / 4 + subpixel::input_offset(px, tx), jj1 = jj0 + 8;
        const bool in0 = jj0 >= 0 && jj0 < shape.width, in1 = jj1 >= 0 && jj1 < shape.width;
#pragma unroll
        for (int m = 0; m < kSteps / 2; ++m) {
          const uint4 r0 =
              in0 ? *reinterpret_cast<const uint4*>(row + jj0 * stride + 64 * m) : uint4{};
          const uint4 r1 =
              in1 ? *reinterpret_cast<const uint4*>(row + jj1 * stride + 64 * m) : uint4{};
          const std::uint32_t a_even[4] = {r0.x, r1.x, r0.y, r1.y};
          const std::uint32_t a_odd[4] = {r0.z, r1.z, r0.w, r1.w};
          const uint2 b_even = b[ty * kTx + tx][2 * m], b_odd = b[ty * kTx + tx][2 * m + 1];
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

// This lane's B fragments of phase z (its taps first; at most 9): output channel lane / 4,
// channels c0 .. c0 + 3 of each k16 step.
template <int kSteps>
__device__ __forceinline__ void rgb_fragments(const TconvShape& shape, int z,
                                              const float* __restrict__ packed,
                                              uint2 (&b)[9][kSteps]) {
  const int lane = threadIdx.x % 32, c_in = shape.in_channels, k_out = shape.out_channels;
  const int first_tap = subpixel::phase_start(z, 1, 1);
  const int taps = subpixel::taps(subpixel::phase_row(z)) * subpixel::taps(subpixel::phase_col(z));
#pragma unroll
  for (int tap = 0; tap < 9; ++tap) {
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      const int n = lane / 4, c0 = 32 * (step / 2) + 8 * (lane % 4) + 4 * (step % 2);
      const bool real = tap < taps && n < k_out;
      const float* w = packed + (static_cast<std::size_t>(first_tap + tap) * c_in + c0) * k_out + n;
      b[tap][step] = make_uint2(bf16_pair(real ? w[0] : 0.0f, real ? w[k_out] : 0.0f),
                                bf16_pair(real ? w[2 * k_out] : 0.0f, real ? w[3 * k_out] : 0.0f));
    }
  }
}

// Warp w of a block takes phase w (heaviest first: (1, 1) 3 x 3 taps, (1, 0), (0, 1), (0, 0))
// for the whole kernel; the block walks its images row by row, every warp through the same
// barriers.
template <int kSteps>
__global__ void __launch_bounds__(kRgbWarps * 32, 4)
    rgb_kernel(TconvShape shape, const __nv_bfloat16* __restrict__ input,
               const float* __restrict__ packed, const float* __restrict__ bias,
               float* __restrict__ output) {
  extern __shared__ __align__(16) unsigned char buffers[];
  const int buffer_bytes = shape.width * rgb_pixel_stride(shape.in_channels);
  const int z = (threadIdx.x / 32) % 4;
  uint2 b[9][kSteps];
  rgb_fragments(shape, z, packed, b);
  for (long long n = blockIdx.x; n < shape.batch; n += gridDim.x) {
    for (int i = 0; i < 3; ++i) {  // rows 0 to 2, one copy group each
      if (i < shape.height) rgb_fetch_row(shape, input, n, i, buffers + i * buffer_bytes);
      cudalabs::async_copy_commit();
    }
    for (int i = 0; i < shape.height; ++i) {
      // Row i + 3 goes into the buffer of row i - 2, which every warp finished with before the
      // last barrier; rows up to i + 1 must have landed before row i is computed.
      if (i + 3 < shape.height)
        rgb_fetch_row(shape, input, n, i + 3, buffers + ((i + 3) % kRgbRowBuffers) * buffer_bytes);
      cudalabs::async_copy_commit();
      cudalabs::async_copy_wait<2>();  // this thread's copies of rows up to i + 1
      __syncthreads();                 // ... and every thread's
      switch (z) {
        case 0:
          rgb_row<3, 3, kSteps>(shape, z, b, buffers, buffer_bytes, n, i, bias, output);
          break;
        case 1:
          rgb_row<3, 2, kSteps>(shape, z, b, buffers, buffer_bytes, n, i, bias, output);
          break;
        case 2:
          rgb_row<2, 3, kSteps>(shape, z, b, buffers, buffer_bytes, n, i, bias, output);
          break;
        default:
          rgb_row<2, 2, kSteps>(shape, z, b, buffers, buffer_bytes, n, i, bias, output);
      }
      __syncthreads();  // every warp is done with rows i - 1 .. i + 1
    }
  }
}

template <int kSteps>
void launch_rgb_steps(const TconvShape& shape, const __nv_bfloat16* input, const float* packed,
                      const float* bias, float* output, cudaStream_t stream) {
  const std::size_t shared =
      static_cast<std::size_t>(kRgbRowBuffers) * shape.width * rgb_pixel_stride(shape.in_channels);
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(&rgb_kernel<kSteps>), shared);
  const long long blocks = std::min<long long>(shape.batch, 4LL * cudalabs::multiprocessor_count());
  rgb_kernel<kSteps><<<static_cast<unsigned>(blocks), kRgbWarps * 32, shared, stream>>>(
      shape, input, packed, bias, output);
  CUDA_CHECK_LAUNCH("lab11 rgb_kernel");
}

void launch_rgb(const TconvShape& shape, const __nv_bfloat16* input, const float* packed,
                const float* bias, float* output, cudaStream_t stream) {
  switch (shape.in_channels / 16) {
    case 2:
      return launch_rgb_steps<2>(shape, input, packed, bias, output, stream);
    case 4:
      return launch_rgb_steps<4>(shape, input, packed, bias, output, stream);
    default:
      return launch_rgb_steps<6>(shape, input, packed, bias, output, stream);
  }
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
                                " is not 32, 64 or 96 (B's fragments live in registers)");
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
