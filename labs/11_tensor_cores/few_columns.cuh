// Lab 11, given: the kernel `best` runs for a C of at most kFewColumnsMax columns (best_plan.h:
// few_columns_pays).
// Nothing here is a TODO.
//
// With N = 4, a 128 x 64 tile of the warp-specialized kernel multiplies 60 columns of zeros, B's
// rows must be copied before TMA can read them (8 bytes apart), and the product is a
// matrix-vector product in disguise, bound by reading A once: one launch of 64-wide tiles took
// 17.5 us at 130 x 4 x 2256 to read 0.6 MB (Nsight Compute), and more slices of K did not make
// them faster at 5040 x 8 x 2296 (docs/data/history/gemm_random_shapes_s18/). So a block streams
// kFewColumnsBlockRows rows of A over its slice of K (gridDim.y slices) straight from global
// memory, and at most 8 columns are one mma.sync m16n8k16: its n8 is all of C's columns. A warp
// takes 16 rows and every fourth 64 values of the slice's K; lane (g, t) loads 16 consecutive
// values of rows g and g + 8 at the widest loads A's rows allow (16, 8 or 4 bytes; rows 2 bytes
// apart, as a vocabulary of 50,257 leaves them, 4 bytes a load and shifted into place), the next 16
// in flight while these are multiplied; they are four MMAs' A fragments once K is read in the order
// the lanes hold it: a sum over K may take K in any order, provided B's fragments take the same
// one. The block's slice of B, at most kFewColumnsMaxSliceK x 8 values, is staged in shared memory
// first, transposed (a row of 8 columns a 16-byte load where B's rows allow it, every load of a
// thread in flight at once), so that lane (g, t) reads its 16 values of column g in two 16-byte
// loads. The four warps of a row group meet in shared memory. With K split, each block writes its
// slice's part of C into the workspace and the last slice of its rows to arrive adds them all into
// C (common/split_finish.cuh), or, in a stream being captured, one more kernel does. (Until session
// 34 the kernel multiplied with FP32 FMAs, 8 values of K a lane:
// docs/data/history/lab11_few_columns_s35_nvidia-h200/ measures the two side by side.)
#pragma once

#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "common/split_finish.cuh"
#include "tensor_core_ptx.cuh"
#include "tiles.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace lab11 {
namespace {

// Values of K a lane holds of each of its rows, and a warp's chunk of K (the lanes of a row side by
// side).
inline constexpr int kFewColumnsLaneK = 16;
inline constexpr int kFewColumnsChunk = 4 * kFewColumnsLaneK;
// BF16 values between the shared B's columns: its longest slice of K (a whole number of chunks),
// and 8 more, so that the 8 lanes of a quarter warp's 16-byte loads (columns g and g + 1, t 32
// bytes apart) fall in distinct banks: a column's start 16 bytes on from the last modulo 128.
inline constexpr int kFewColumnsBStride = kFewColumnsMaxSliceK + 8;
static_assert(kFewColumnsMaxSliceK % kFewColumnsChunk == 0, "a slice's chunks fit the columns");
// Warps of a block that share a row group, each every fourth chunk of the slice's K.
inline constexpr int kFewColumnsStripes = kFewColumnsWarps / (kFewColumnsBlockRows / 16);

// A lane's kFewColumnsLaneK BF16 values of a row as loaded (the next chunk's loads in flight while
// this chunk's MMAs run), kBytes at a time, the widest A's rows allow, two values a register. Rows
// 2 bytes apart are loaded 4 bytes at a time too, from the word at or below the first value: off 4
// bytes, the 16 values span 9 words, and each pair is shifted into place as the MMA takes it
// (shifting as they arrive would wait for the loads).
template <int kBytes>
struct RowValues {
  static constexpr int kCount = kFewColumnsLaneK;
  static constexpr int kWords = kCount / 2;
  static constexpr int kLoaded = kBytes >= 4 ? kWords : kWords + 1;
  unsigned bits[kLoaded];
  unsigned shift = 0;  // bits the values sit above the loaded words (0, or 16 where off 4 bytes)

  // The values at `p` (kBytes aligned), `valid` of them (the rest zero).
  __device__ __forceinline__ void load(const __nv_bfloat16* p, int valid) {
    const auto* halves = reinterpret_cast<const unsigned short*>(p);
    if constexpr (kBytes >= 4) {
      if (valid >= kCount) {
        using Word = std::conditional_t<kBytes == 16, uint4,
                                        std::conditional_t<kBytes == 8, uint2, unsigned>>;
        constexpr int kPerLoad = kBytes / 4;
#pragma unroll
        for (int l = 0; l < kWords / kPerLoad; ++l) {
          const Word raw = __ldg(reinterpret_cast<const Word*>(p) + l);
          memcpy(&bits[l * kPerLoad], &raw, kBytes);
        }
        return;
      }
    } else {
      // The word at or below the first value holds it: never before the matrix's allocation,
      // whose start is a whole word.
      const auto address = reinterpret_cast<std::uintptr_t>(p);
      shift = static_cast<unsigned>(address & 2u) * 8u;
      // The ninth word holds value 16: only where the slice has it too.
      if (valid > kCount || (valid == kCount && shift == 0)) {
        const auto* words = reinterpret_cast<const unsigned*>(address & ~std::uintptr_t{3});
#pragma unroll
        for (int w = 0; w < kWords; ++w) bits[w] = __ldg(words + w);
        bits[kWords] = shift != 0 ? __ldg(words + kWords) : 0u;
        return;
      }
      shift = 0;
      bits[kWords] = 0u;
    }
    // The slice's last values, one at a time.
#pragma unroll
    for (int w = 0; w < kWords; ++w) {
      const unsigned low = 2 * w < valid ? __ldg(halves + 2 * w) : 0u;
      const unsigned high = 2 * w + 1 < valid ? __ldg(halves + 2 * w + 1) : 0u;
      bits[w] = low | high << 16;
    }
  }
  // Values 2 i and 2 i + 1 as one register, the lower in the low half (an MMA fragment's pair).
  __device__ __forceinline__ std::uint32_t pair(int i) const {
    if constexpr (kBytes >= 4) {
      return bits[i];
    } else {
      return __funnelshift_r(bits[i], bits[i + 1], shift);
    }
  }
};

template <int kCols, int kBytes>
__global__ void __launch_bounds__(kFewColumnsThreads, kFewColumnsBlocksPerSm)
    few_columns_kernel(cudalabs::Bf16GemmArgs args, int slice_k, cudalabs::SplitFinish finish) {
  static_assert(kCols <= 8 && kFewColumnsBlockRows % 16 == 0, "8 columns, row groups of 16");
  __shared__ __align__(16) unsigned short b_shared[8 * kFewColumnsBStride];  // [column][k], BF16
  __shared__ float partial[kFewColumnsWarps][32][4];  // each warp's accumulators, to be summed
  __shared__ int last_part;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4;  // the MMA's row (and B's column) and pair in it
  const int group = warp / kFewColumnsStripes, stripe = warp % kFewColumnsStripes;
  const int k0 = static_cast<int>(blockIdx.y) * slice_k;
  const int k_len = min(slice_k, args.k - k0);
  const int block_row0 = static_cast<int>(blockIdx.x) * kFewColumnsBlockRows;
  const int row0 = block_row0 + group * 16 + g;  // this lane's rows: row0 and row0 + 8

  // The lane's two rows (past M: the last row, read and never stored), from this slice's first
  // value, and their first 8 values, in flight while B is staged.
  const __nv_bfloat16* a_row[2];
#pragma unroll
  for (int h = 0; h < 2; ++h)
    a_row[h] = args.a + static_cast<long long>(min(row0 + 8 * h, args.m - 1)) * args.lda + k0;
  constexpr int kStep = kFewColumnsChunk * kFewColumnsStripes;  // K a warp advances per chunk
  constexpr int kLaneK = kFewColumnsLaneK;
  RowValues<kBytes> a[2], next[2];
  const int first_chunk = stripe * kFewColumnsChunk;  // the warp's: first_chunk + kStep i < k_len
  if (first_chunk < k_len) {
    const int k = first_chunk + kLaneK * t;
#pragma unroll
    for (int h = 0; h < 2; ++h) next[h].load(a_row[h] + k, k_len - k);
  }

  // This slice's B, transposed: column c of B at b_shared[c * kFewColumnsBStride], zeros past N
  // and past the slice up to its last chunk (A is zero there, B must be finite). Every load of a
  // thread is in flight at once: with 8 columns in 16-byte rows, one row of B a load; else one
  // value.
  const int b_rows = (k_len + kFewColumnsChunk - 1) / kFewColumnsChunk * kFewColumnsChunk;
  const bool b_rows_wide = kCols == 8 && args.n == 8 && args.ldb % 8 == 0 &&
                           reinterpret_cast<std::uintptr_t>(args.b) % 16 == 0;
  if (b_rows_wide) {
    constexpr int kRowsEach = kFewColumnsMaxSliceK / kFewColumnsThreads;
    uint4 rows[kRowsEach];
#pragma unroll
    for (int j = 0; j < kRowsEach; ++j) {
      const int k = static_cast<int>(threadIdx.x) + j * kFewColumnsThreads;
      rows[j] = k < k_len ? __ldg(reinterpret_cast<const uint4*>(
                                args.b + static_cast<long long>(k0 + k) * args.ldb))
                          : make_uint4(0u, 0u, 0u, 0u);
    }
#pragma unroll
    for (int j = 0; j < kRowsEach; ++j) {
      const int k = static_cast<int>(threadIdx.x) + j * kFewColumnsThreads;
      unsigned short value[8];
      memcpy(value, &rows[j], sizeof(value));
      if (k < b_rows) {
#pragma unroll
        for (int c = 0; c < 8; ++c) b_shared[c * kFewColumnsBStride + k] = value[c];
      }
    }
  } else {
    constexpr int kBatch = kFewColumnsMaxSliceK * kCols / kFewColumnsThreads;
    const auto* b_bits = reinterpret_cast<const unsigned short*>(args.b);
    for (int first_value = static_cast<int>(threadIdx.x); first_value < b_rows * kCols;
         first_value += kFewColumnsThreads * kBatch) {
      unsigned short value[kBatch];
#pragma unroll
      for (int q = 0; q < kBatch; ++q) {
        const int i = first_value + q * kFewColumnsThreads, k = i / kCols, c = i % kCols;
        value[q] = k < k_len && c < args.n
                       ? __ldg(b_bits + static_cast<long long>(k0 + k) * args.ldb + c)
                       : static_cast<unsigned short>(0);
      }
#pragma unroll
      for (int q = 0; q < kBatch; ++q) {
        const int i = first_value + q * kFewColumnsThreads;
        if (i < b_rows * kCols) b_shared[i % kCols * kFewColumnsBStride + i / kCols] = value[q];
      }
    }
  }
  __syncthreads();

  // Chunks of 64 values: lane (g, t) holds values 16 t .. 16 t + 15 of rows g and g + 8, and of
  // B's column g; MMA j takes values 16 t + 4 j .. 16 t + 4 j + 3 as the fragment's pairs (2 t,
  // 2 t + 1) and (2 t + 8, 2 t + 9).
  // The chunk's start is the whole warp's (mma.sync needs every lane); a lane's values past the
  // slice load as zeros.
  float acc[4] = {};
  for (int chunk = first_chunk; chunk < k_len; chunk += kStep) {
    a[0] = next[0];
    a[1] = next[1];
    const int k = chunk + kLaneK * t;  // this lane's first value of the chunk
    if (chunk + kStep < k_len) {       // the next chunk's loads, in flight during this one's MMAs
#pragma unroll
      for (int h = 0; h < 2; ++h) next[h].load(a_row[h] + k + kStep, k_len - k - kStep);
    }
    const auto* b = reinterpret_cast<const uint4*>(b_shared + g * kFewColumnsBStride + k);
#pragma unroll
    for (int q = 0; q < kLaneK / 8; ++q) {
      const uint4 b_values = g < kCols ? b[q] : make_uint4(0u, 0u, 0u, 0u);  // kCols: B's columns
      const int p = 4 * q;  // the first of these 8 values' pairs
      const std::uint32_t first_a[4] = {a[0].pair(p), a[1].pair(p), a[0].pair(p + 1),
                                        a[1].pair(p + 1)};
      ptx::mma_m16n8k16_bf16(acc, first_a, b_values.x, b_values.y);
      const std::uint32_t second_a[4] = {a[0].pair(p + 2), a[1].pair(p + 2), a[0].pair(p + 3),
                                         a[1].pair(p + 3)};
      ptx::mma_m16n8k16_bf16(acc, second_a, b_values.z, b_values.w);
    }
  }

  // The stripes' sums meet in shared memory; stripe 0's lanes store rows row0 and row0 + 8,
  // columns 2 t and 2 t + 1: C itself with K whole, this slice's part of the workspace (args.c:
  // alpha 1, beta 0) with K split.
#pragma unroll
  for (int i = 0; i < 4; ++i) partial[warp][lane][i] = acc[i];
  __syncthreads();
  if (stripe == 0) {
    float* part = args.c + static_cast<long long>(blockIdx.y) * args.m * args.ldc;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float sum = acc[i];
#pragma unroll
      for (int s = 1; s < kFewColumnsStripes; ++s) sum += partial[warp + s][lane][i];
      const int row = row0 + (i / 2) * 8, column = 2 * t + i % 2;
      if (row < args.m && column < args.n)
        cudalabs::store_gemm_result(part + static_cast<long long>(row) * args.ldc + column, sum,
                                    args.alpha, args.beta);
    }
  }
  if (gridDim.y > 1 && finish.in_place()) {
    cudalabs::finish_part(
        finish, args.c, args.ldc, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.y),
        block_row0, min(kFewColumnsBlockRows, args.m - block_row0), 0, args.n,
        static_cast<int>(threadIdx.x), kFewColumnsThreads, &last_part, [] { __syncthreads(); });
  }
}

}  // namespace
}  // namespace lab11
