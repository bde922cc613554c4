// Lab 11's DCGAN on tensor cores: the linear layer with its bias, batch norm and ReLU in one
// kernel (given code, the same in both builds). The layer is a GEMM with a short K (the latent's
// 100 values) and a wide output (4 x 4 x 512 a latent): its time is the output's bytes and the
// arithmetic. FP32 FFMA (lab 07's GEMM) ran it at a fifth of its floor and stored FP32 for a second
// kernel to read back. Here TF32 tensor cores (mma.sync m16n8k8) do the arithmetic in three
// products, a_hi b_hi + a_hi b_lo + a_lo b_hi, where x_hi is x rounded to TF32 and x_lo the rest
// rounded again: about FP32's accuracy (the layer's inputs stay unrounded, as the generator's
// precision study assumes), and the epilogue stores the next layer's input directly.
#include "common/async_copy.cuh"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "dcgan_layers.h"
#include "tensor_core_ptx.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lab11 {
namespace {

constexpr int kRows = 128;                   // latents a tile
constexpr int kColumns = 128;                // outputs a tile
constexpr int kMaxDepth = 128;               // K, padded to 8, that shared memory holds
constexpr int kThreads = 256;                // 8 warps of 32 rows x 64 columns
constexpr int kColumnStride = kColumns + 8;  // B's rows: 8 k rows apart by 8 banks

// Shared rows of A are K padded to 8, plus 4 floats: lane (g, t) of a fragment then hits bank
// 4 g + t (times an odd number), all 32 different.
__host__ __device__ constexpr int row_stride(int depth) {
  return depth + 4;
}

// Floats of one of B's buffers: the tile, then its columns' scales and shifts.
__host__ __device__ constexpr int b_buffer_floats(int depth) {
  return depth * kColumnStride + 2 * kColumns;
}

// A's tile and two of B's: the next tile's B lands while this one's is multiplied.
__host__ __device__ constexpr std::size_t shared_bytes(int depth) {
  return (static_cast<std::size_t>(kRows) * row_stride(depth) +
          2 * static_cast<std::size_t>(b_buffer_floats(depth))) *
         sizeof(float);
}

__device__ __forceinline__ void split_tf32(float value, std::uint32_t& hi, std::uint32_t& lo) {
  const float high = ptx::round_to_tf32(value);
  hi = __float_as_uint(high);
  lo = __float_as_uint(ptx::round_to_tf32(value - high));
}

__device__ __forceinline__ void store_pair(__nv_bfloat16* out, float a, float b) {
  *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(a, b);
}
__device__ __forceinline__ void store_pair(float* out, float a, float b) {
  *reinterpret_cast<float2*>(out) = make_float2(ptx::round_to_tf32(a), ptx::round_to_tf32(b));
}

struct LinearArgs {
  const float* latents;
  int count, depth, padded;
  const float* weight;
  int outputs;
  bool wide_weight;  // weight 16-byte aligned: B's rows copied 16 bytes a lane
  const float* scale;
  const float* shift;
};

// Starts copying rows row0 .. row0 + kRows - 1 of the latents into A (zeros past the batch and
// past the depth, up to the padded depth), 4 bytes a copy: a row of `depth` floats has any
// alignment.
__device__ __forceinline__ void start_a(const LinearArgs& p, int row0, float* a) {
  const int stride = row_stride(p.padded);
  for (int e = threadIdx.x; e < kRows * p.padded; e += kThreads) {
    const int r = e / p.padded, k = e - r * p.padded;
    const bool inside = row0 + r < p.count && k < p.depth;
    const float* source =
        inside ? p.latents + static_cast<long long>(row0 + r) * p.depth + k : p.latents;
    cudalabs::async_copy_4(a + r * stride + k, source, inside);
  }
}

// Starts copying columns col0 .. col0 + kColumns - 1 of the weight's rows into B (zero rows past
// the depth), and their scales and shifts after it: the epilogue then waits on no global load.
__device__ __forceinline__ void start_b(const LinearArgs& p, int col0, float* b) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  static_assert(kThreads == 2 * kColumns, "a thread copies one scale or shift");
  const float* affine = threadIdx.x < kColumns ? p.scale : p.shift - kColumns;
  cudalabs::async_copy_4(b + p.padded * kColumnStride + threadIdx.x, affine + col0 + threadIdx.x,
                         true);
  for (int k = warp; k < p.padded; k += kThreads / 32) {
    const bool inside = k < p.depth;
    const float* row = p.weight + static_cast<long long>(inside ? k : 0) * p.outputs + col0;
    if (p.wide_weight) {
      cudalabs::async_copy_16(b + k * kColumnStride + 4 * lane, row + 4 * lane, inside);
    } else {
#pragma unroll
      for (int j = 0; j < kColumns / 32; ++j)
        cudalabs::async_copy_4(b + k * kColumnStride + lane + 32 * j, row + lane + 32 * j, inside);
    }
  }
}

// A persistent block takes a run of tiles in row-major order (tiles t0 .. t1 - 1): A stays while
// the row of tiles does, and the next tile's B is copied while this one's is multiplied.
template <class T>
__global__ void __launch_bounds__(kThreads, 1)
    linear_bn_relu_kernel(LinearArgs p, T* __restrict__ out) {
  extern __shared__ __align__(16) float shared[];
  const int stride = row_stride(p.padded);
  float* a = shared;  // kRows x padded, rows `stride` apart
  // B's two buffers: padded x kColumns, rows kColumnStride apart, then the scales and shifts.
  const auto b_tile = [&](int which) {
    return shared + kRows * stride + which * b_buffer_floats(p.padded);
  };
  const int column_tiles = p.outputs / kColumns;
  const long long tiles = static_cast<long long>((p.count + kRows - 1) / kRows) * column_tiles;
  const long long t0 = tiles * blockIdx.x / gridDim.x, t1 = tiles * (blockIdx.x + 1) / gridDim.x;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_row = (warp / 2) * 32, warp_col = (warp % 2) * 64;

  int row_tile = static_cast<int>(t0 / column_tiles), buffer = 0;
  start_a(p, row_tile * kRows, a);
  start_b(p, static_cast<int>(t0 % column_tiles) * kColumns, b_tile(0));
  cudalabs::async_copy_commit();
  for (long long tile = t0; tile < t1; ++tile) {
    // This tile's A and B have landed, and every warp is done with the other B buffer.
    cudalabs::async_copy_wait<0>();
    __syncthreads();
    const bool next_in_row = tile + 1 < t1 && (tile + 1) / column_tiles == row_tile;
    if (next_in_row) {
      start_b(p, static_cast<int>((tile + 1) % column_tiles) * kColumns, b_tile(buffer ^ 1));
      cudalabs::async_copy_commit();
    }
    const float* b = b_tile(buffer);
    float acc[2][8][4] = {};
    for (int k0 = 0; k0 < p.padded; k0 += 8) {
      std::uint32_t a_hi[2][4], a_lo[2][4];
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        const float* rows = a + (warp_row + 16 * m + g) * stride + k0 + t;
        split_tf32(rows[0], a_hi[m][0], a_lo[m][0]);
        split_tf32(rows[8 * stride], a_hi[m][1], a_lo[m][1]);
        split_tf32(rows[4], a_hi[m][2], a_lo[m][2]);
        split_tf32(rows[8 * stride + 4], a_hi[m][3], a_lo[m][3]);
      }
      // Four column tiles at a time, and the three products of a tile far apart: each mma.sync
      // waits for the one before on the same accumulators, so eight others run in between.
#pragma unroll
      for (int n0 = 0; n0 < 8; n0 += 4) {
        std::uint32_t b_hi[4][2], b_lo[4][2];
#pragma unroll
        for (int n = 0; n < 4; ++n) {
          const float* column = b + (k0 + t) * kColumnStride + warp_col + 8 * (n0 + n) + g;
          split_tf32(column[0], b_hi[n][0], b_lo[n][0]);
          split_tf32(column[4 * kColumnStride], b_hi[n][1], b_lo[n][1]);
        }
        // The small products first: they are the ones FP32's rounding would lose.
#pragma unroll
        for (int n = 0; n < 4; ++n)
#pragma unroll
          for (int m = 0; m < 2; ++m)
            ptx::mma_m16n8k8_tf32(acc[m][n0 + n], a_lo[m], b_hi[n][0], b_hi[n][1]);
#pragma unroll
        for (int n = 0; n < 4; ++n)
#pragma unroll
          for (int m = 0; m < 2; ++m)
            ptx::mma_m16n8k8_tf32(acc[m][n0 + n], a_hi[m], b_lo[n][0], b_lo[n][1]);
#pragma unroll
        for (int n = 0; n < 4; ++n)
#pragma unroll
          for (int m = 0; m < 2; ++m)
            ptx::mma_m16n8k8_tf32(acc[m][n0 + n], a_hi[m], b_hi[n][0], b_hi[n][1]);
      }
    }

    const int row0 = row_tile * kRows, col0 = static_cast<int>(tile % column_tiles) * kColumns;
#pragma unroll
    for (int n = 0; n < 8; ++n) {
      const int col = col0 + warp_col + 8 * n + 2 * t;
      const float* affine = b + p.padded * kColumnStride + (col - col0);
      const float2 s = *reinterpret_cast<const float2*>(affine);
      const float2 h = *reinterpret_cast<const float2*>(affine + kColumns);
#pragma unroll
      for (int m = 0; m < 2; ++m) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = row0 + warp_row + 16 * m + g + 8 * half;
          if (row >= p.count) continue;
          store_pair(out + static_cast<long long>(row) * p.outputs + col,
                     fmaxf(acc[m][n][2 * half] * s.x + h.x, 0.0f),
                     fmaxf(acc[m][n][2 * half + 1] * s.y + h.y, 0.0f));
        }
      }
    }
    if (tile + 1 < t1 && !next_in_row) {  // a new row of tiles: A again, once every warp is done
      __syncthreads();
      row_tile = static_cast<int>((tile + 1) / column_tiles);
      start_a(p, row_tile * kRows, a);
      start_b(p, static_cast<int>((tile + 1) % column_tiles) * kColumns, b_tile(buffer ^ 1));
      cudalabs::async_copy_commit();
    }
    buffer ^= 1;
  }
}

template <class T>
void launch_linear_bn_relu(const float* latents, int count, int depth, const float* weight,
                           int outputs, const float* scale, const float* shift, T* out,
                           cudaStream_t stream) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("lab11 linear_bn_relu: " + what);
  };
  if (count < 1) fail("count = " + std::to_string(count) + " must be >= 1");
  if (depth < 1 || depth > kMaxDepth)
    fail("depth = " + std::to_string(depth) + " is outside 1.." + std::to_string(kMaxDepth));
  if (outputs < kColumns || outputs % kColumns != 0)
    fail("outputs = " + std::to_string(outputs) + " is not a multiple of " +
         std::to_string(kColumns));
  using cudalabs::aligned_to;
  if (!aligned_to(scale, 8) || !aligned_to(shift, 8) || !aligned_to(out, 2 * sizeof(T)))
    fail("scale and shift must be 8-byte aligned, out two elements");
  const int padded = (depth + 7) / 8 * 8;
  const std::size_t bytes = shared_bytes(padded);
  const auto kernel = linear_bn_relu_kernel<T>;
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(kernel), bytes);
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, bytes));
  const long long tiles = cudalabs::ceil_div<long long>(count, kRows) * (outputs / kColumns);
  const long long blocks = std::min<long long>(
      tiles, static_cast<long long>(std::max(per_sm, 1)) * cudalabs::multiprocessor_count());
  const LinearArgs args{latents, count, depth, padded, weight, outputs, aligned_to(weight, 16),
                        scale,   shift};
  kernel<<<static_cast<unsigned>(blocks), kThreads, bytes, stream>>>(args, out);
  CUDA_CHECK_LAUNCH("lab11 linear_bn_relu_kernel");
}

}  // namespace

void linear_bn_relu(const float* latents, int count, int depth, const float* weight, int outputs,
                    const float* scale, const float* shift, __nv_bfloat16* out,
                    cudaStream_t stream) {
  launch_linear_bn_relu(latents, count, depth, weight, outputs, scale, shift, out, stream);
}

void linear_bn_relu(const float* latents, int count, int depth, const float* weight, int outputs,
                    const float* scale, const float* shift, float* out, cudaStream_t stream) {
  launch_linear_bn_relu(latents, count, depth, weight, outputs, scale, shift, out, stream);
}

}  // namespace lab11
