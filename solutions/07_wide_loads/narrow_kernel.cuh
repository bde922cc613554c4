// Lab 07 solution, the optional challenge's kernel for a C a few columns wide (best_kernels.cuh
// includes it): narrow_gemm_kernel<kCols, kSlicedK>.
//
// A C of N <= 16 columns (the DCGAN's RGB layer has 3): a tile of 64 or more columns would compute
// zeros in all but N of them, and the product is a matrix-vector product in disguise, bound by
// reading A once (2 N FLOPs per 4 bytes). Each warp streams kNarrowRows rows of A, lane l on the
// four consecutive k 4l .. 4l + 3 of each 128-wide chunk of K: one 128-bit load a row, 512
// contiguous bytes a warp. The block stages the chunk's 128 rows of B (kCols columns) through
// shared memory with 128-bit loads, coalesced (a warp reads whole rows), where B's rows would
// otherwise be read by each lane for itself, kCols scalar loads 32 rows apart. On rows off 16-byte
// alignment both take the tile kernels' four scalar loads (row_loads.cuh). A chunk's
// loads of A are in flight while the block stages its B (two blocks an SM overlap one's loads with
// the other's FFMAs); the lanes' sums meet through shuffles. Block b covers rows
// (b / chunks) * kNarrowWarps * kNarrowRows .. and the column chunk b % chunks.
#pragma once

#include "common/gemm_device.cuh"
#include "labs/07_wide_loads/k_slice.cuh"
#include "labs/07_wide_loads/tiles.h"
#include "row_loads.cuh"

#include <cstdint>

namespace lab07 {
namespace {

// The k a chunk spans: one float4 of each row of A per lane.
constexpr int kNarrowChunkK = 32 * 4;

// The chunk of B in shared memory. Row kk serves lane kk / 4 as its (kk % 4)-th k, so it lives in
// slot (kk % 4) * 33 + kk / 4: lane l's j-th row is slot 33 j + l, a warp's 128-bit reads cover
// consecutive slots, and slots are an odd number of float4s apart, so the 8 lanes of each phase of
// an LDS.128 hit 8 different groups of 4 banks (no conflict). The 33 spreads the four groups of
// slots over the banks as the rows are stored.
template <int kCols>
struct NarrowStage {
  static constexpr int kVectors = kCols / 4;                             // float4s of a row
  static constexpr int kStride = kVectors % 2 == 1 ? kCols : kCols + 4;  // floats slot to slot
  static constexpr int kSlots = 4 * 33;
  static constexpr int kFloats = kSlots * kStride;
  // float4s of the chunk a thread loads (threads past the chunk's end load nothing)
  static constexpr int kLoads = (kNarrowChunkK * kVectors + kNarrowThreads - 1) / kNarrowThreads;
  __device__ static int slot(int kk) { return kk % 4 * 33 + kk / 4; }
};

// The first `count` of the four floats at p (none when count <= 0), as loaded: load_four_inside
// (row_loads.cuh) wherever the four lie before `end`, one past the matrix's last float (past
// `count` they are then the row's padding or the next row's start, dropped by clip_four where the
// values are used). Only the last few floats of the matrix's last row take tested scalar loads.
template <bool kAligned>
__device__ __forceinline__ float4 load_four_clipped(const float* p, int count, const float* end) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (count <= 0) return v;
  if (p + 4 <= end) return load_four_inside<kAligned>(p);
  v.x = __ldg(p);
  if (count > 1) v.y = __ldg(p + 1);
  if (count > 2) v.z = __ldg(p + 2);  // p + 3 is past the matrix's end, so count < 4
  return v;
}

// What load_four_clipped loaded, the floats past `count` zero (the padding it read may hold
// anything, NaN included). Applied where the values are used, not where they are loaded: a select
// on a loaded value makes the warp wait for the load there.
__device__ __forceinline__ float4 clip_four(const float4& loaded, int count) {
  float4 v = loaded;
  if (count < 4) v.w = 0.0f;
  if (count < 3) v.z = 0.0f;
  if (count < 2) v.y = 0.0f;
  if (count < 1) v.x = 0.0f;
  return v;
}

__device__ __forceinline__ float component(const float4& v, int j) {
  return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}

// The kernel's body for rows of A and B that are all 16-byte aligned (kAligned) or not.
template <int kCols, bool kAligned>
__device__ __forceinline__ void narrow_gemm(const cudalabs::GemmArgs& args, float* stage) {
  using Stage = NarrowStage<kCols>;
  const int chunks = (args.n + kCols - 1) / kCols;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = (static_cast<int>(blockIdx.x) / chunks * kNarrowWarps + warp) * kNarrowRows;
  const int col0 = static_cast<int>(blockIdx.x) % chunks * kCols;
  // A warp below C's last row stages B with the others (the barriers take the whole block) and
  // reads no A.
  const int rows = max(0, min(kNarrowRows, args.m - row0)), cols = min(kCols, args.n - col0);
  const float* a = args.a + static_cast<long long>(min(row0, args.m - 1)) * args.lda;
  const float* b = args.b + col0;
  const float* a_end = args.a + static_cast<long long>(args.m - 1) * args.lda + args.k;
  const float* b_end = args.b + static_cast<long long>(args.k - 1) * args.ldb + args.n;

  // [narrow]
  // This lane's float4 of each of its rows of A at chunk k0, and this thread's float4s of the
  // chunk's rows of B (on their way to `stage`).
  // Both stay as loaded until they are used (clip_four), after the barrier.
  float4 a_next[kNarrowRows], b_next[Stage::kLoads];
  float4 a_now[kNarrowRows];
  auto load_a = [&](int k0) {
    const int k = k0 + 4 * lane;
#pragma unroll
    for (int r = 0; r < kNarrowRows; ++r) {
      a_next[r] = load_four_clipped<kAligned>(a + r * static_cast<long long>(args.lda) + k,
                                              r < rows ? args.k - k : 0, a_end);
    }
  };
  auto load_b = [&](int k0) {
#pragma unroll
    for (int i = 0; i < Stage::kLoads; ++i) {
      const int v = threadIdx.x + i * kNarrowThreads, kk = v / Stage::kVectors;
      const int q = v % Stage::kVectors;
      b_next[i] = load_four_clipped<kAligned>(
          b + static_cast<long long>(k0 + kk) * args.ldb + 4 * q,
          kk < kNarrowChunkK && k0 + kk < args.k ? cols - 4 * q : 0, b_end);
    }
  };
  // Step j of the chunk for this lane: k = k0 + 4 lane + j, B's row from its slot.
  float acc[kNarrowRows][kCols] = {};
  auto multiply_step = [&](int j) {
    const float* b_row = stage + (j * 33 + lane) * Stage::kStride;
#pragma unroll
    for (int q = 0; q < Stage::kVectors; ++q) {
      const float4 b4 = *reinterpret_cast<const float4*>(b_row + 4 * q);
#pragma unroll
      for (int r = 0; r < kNarrowRows; ++r) {
        const float a_value = component(a_now[r], j);
        acc[r][4 * q + 0] = fmaf(a_value, b4.x, acc[r][4 * q + 0]);
        acc[r][4 * q + 1] = fmaf(a_value, b4.y, acc[r][4 * q + 1]);
        acc[r][4 * q + 2] = fmaf(a_value, b4.z, acc[r][4 * q + 2]);
        acc[r][4 * q + 3] = fmaf(a_value, b4.w, acc[r][4 * q + 3]);
      }
    }
  };

  for (int k0 = 0; k0 < args.k; k0 += kNarrowChunkK) {
    load_a(k0);  // in flight until the FFMAs
    load_b(k0);
    __syncthreads();  // every warp is done with the previous chunk of B
#pragma unroll
    for (int i = 0; i < Stage::kLoads; ++i) {
      const int v = threadIdx.x + i * kNarrowThreads, kk = v / Stage::kVectors;
      if (kk < kNarrowChunkK) {
        const int q = v % Stage::kVectors;
        *reinterpret_cast<float4*>(stage + Stage::slot(kk) * Stage::kStride + 4 * q) =
            clip_four(b_next[i], k0 + kk < args.k ? cols - 4 * q : 0);
      }
    }
    __syncthreads();
    if (rows == 0) continue;
#pragma unroll
    for (int r = 0; r < kNarrowRows; ++r)
      a_now[r] = clip_four(a_next[r], r < rows ? args.k - (k0 + 4 * lane) : 0);
    // The lane's k past K's end (in the last chunk only) run no FFMA: the product's count exactly.
    const int steps = min(4, args.k - k0 - 4 * lane);
    if constexpr (kCols < kNarrowMaxCols) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (j < steps) multiply_step(j);
      }
    } else {
      // Rolled: unrolled, the compiler's early shared loads take more than the 128 registers of
      // two blocks an SM (ptxas: spills).
#pragma unroll 1
      for (int j = 0; j < steps; ++j) multiply_step(j);
    }
  }
  // No barrier below: a warp may leave alone. Every lane ends with every sum; lane
  // (r * kCols + c) % 32 stores element (r, c).
  if (rows == 0) return;
#pragma unroll
  for (int r = 0; r < kNarrowRows; ++r) {
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      float sum = acc[r][c];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
      if ((r * kCols + c) % 32 == lane && r < rows && c < cols)
        cudalabs::store_gemm_result(args.c + static_cast<long long>(row0 + r) * args.ldc + col0 + c,
                                    sum, args.alpha, args.beta);
    }
  }
  // [narrow]
}

// __launch_bounds__(kNarrowThreads, 2): two blocks an SM, so that 16 warps' loads are in flight
// (the kernel's speed is DRAM's).
template <int kCols, bool kSlicedK>
__global__ void __launch_bounds__(kNarrowThreads, 2)
    narrow_gemm_kernel(cudalabs::GemmArgs args, cudalabs::SplitFinish finish) {
  // best's split-K (k_slice.cuh): the block's part of C, then its slice of K
  const TilePart part = narrow_block_part<kCols>(args, finish);
  if constexpr (kSlicedK) args = k_slice_of_block(args);
  __shared__ __align__(16) float stage[NarrowStage<kCols>::kFloats];
  const auto aligned = [](const float* p, int ld) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0;
  };
  if (aligned(args.a, args.lda) && aligned(args.b, args.ldb)) {
    narrow_gemm<kCols, true>(args, stage);
  } else {
    narrow_gemm<kCols, false>(args, stage);
  }
  part.stored();  // split: the block's slice counted, and the last slice sums the block's part
}

}  // namespace
}  // namespace lab07
