// Lab 11 solution: the warp-specialized kernel's epilogue through shared memory.
//
// A wgmma accumulator fragment holds, per lane, pairs of columns 8 apart on two rows 8 apart:
// stored as it lies, a warp's store touches 8 rows at once and, where C's rows are not 8-byte
// aligned (an odd N), fills only part of each 32-byte sector it touches, twice. Nsight Compute
// counted 3 L2 write sectors per sector of C that way at 896 x 13697 x 16 (cuBLAS: 1.1), and the
// kernel ran at a third of cuBLAS's speed where the epilogue is the work (a short K). Here each
// warp first puts 16 rows x 32 columns of its accumulators in shared memory (EpilogueStaging), then
// writes them a row's consecutive columns per store: 4 floats a lane where C's rows are 16-byte
// aligned, 2 where 8, 1 otherwise; whole sectors at any alignment.
#pragma once

#include "common/gemm_types.h"
#include "tiles.h"

#include <cstdint>
#include <utility>

namespace lab11 {
namespace {

template <int kVector>
struct FloatVector;
template <>
struct FloatVector<1> {
  using type = float;
};
template <>
struct FloatVector<2> {
  using type = float2;
};
template <>
struct FloatVector<4> {
  using type = float4;
};

// The widest store C's rows allow: 4 (16-byte aligned rows), 2 (8-byte) or 1 floats.
__device__ __forceinline__ int staged_store_width(const cudalabs::Bf16GemmArgs& out) {
  const auto address = reinterpret_cast<std::uintptr_t>(out.c);
  if (address % 16 == 0 && out.ldc % 4 == 0) return 4;
  if (address % 8 == 0 && out.ldc % 2 == 0) return 2;
  return 1;
}

template <class Vector>
__device__ __forceinline__ Vector scaled(Vector v, float alpha) {
  float* e = reinterpret_cast<float*>(&v);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(Vector) / sizeof(float)); ++i) e[i] *= alpha;
  return v;
}

template <class Vector>
__device__ __forceinline__ Vector plus_scaled(Vector v, Vector old, float beta) {
  float* e = reinterpret_cast<float*>(&v);
  const float* o = reinterpret_cast<const float*>(&old);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(Vector) / sizeof(float)); ++i) e[i] += beta * o[i];
  return v;
}

// C(row0 .. row0 + 15, col0 .. col0 + 31) = alpha * staged + beta * C, kVector floats a lane per
// store: 32 / kVector lanes cover a row, kVector rows per store. C is read only when beta != 0, and
// nothing is written outside C. The common case (every store whole, beta 0) is unrolled, its loads
// first so that they overlap; the rest is a loop. Unrolled too, the edges and beta were most of the
// 256-wide kernel's 205 KiB of instructions, which a tile's epilogue runs once each, fetched from
// L2 for every tile (Nsight Compute at 539 x 6046 x 24, one tile an SM: 66 % of the warps' stall
// samples waiting for an instruction); a loop for all of it slowed the epilogues of large C.
template <int kVector>
__device__ __forceinline__ void store_staged_rows(const cudalabs::Bf16GemmArgs& out,
                                                  const float* staged, int row0, int col0) {
  using Vector = typename FloatVector<kVector>::type;
  constexpr int kLanesPerRow = EpilogueStaging::kColumns / kVector;
  constexpr int kSteps = EpilogueStaging::kRows / kVector;
  const int lane = threadIdx.x % 32;
  const int first = lane / kLanesPerRow, column = (lane % kLanesPerRow) * kVector;
  const int col = col0 + column;
  if (col >= out.n) return;
  const bool whole = col + kVector <= out.n;
  const float* from = staged + first * EpilogueStaging::kStride + column;
  float* to = out.c + static_cast<long long>(row0 + first) * out.ldc + col;
  const int rows = min(kSteps, (out.m - row0 - first + kVector - 1) / kVector);  // rows go down
  if (whole && rows == kSteps && out.beta == 0.0f) {
    Vector v[kSteps];
#pragma unroll
    for (int step = 0; step < kSteps; ++step)
      v[step] = *reinterpret_cast<const Vector*>(from + step * kVector * EpilogueStaging::kStride);
#pragma unroll
    for (int step = 0; step < kSteps; ++step)
      *reinterpret_cast<Vector*>(to + step * kVector * static_cast<long long>(out.ldc)) =
          scaled(v[step], out.alpha);
    return;
  }
#pragma unroll 1
  for (int step = 0; step < rows; ++step) {
    if (whole) {
      Vector v = scaled(*reinterpret_cast<const Vector*>(from), out.alpha);
      if (out.beta != 0.0f) v = plus_scaled(v, *reinterpret_cast<const Vector*>(to), out.beta);
      *reinterpret_cast<Vector*>(to) = v;
    } else {  // the last columns of C
#pragma unroll 1
      for (int e = 0; e < kVector && col + e < out.n; ++e)
        to[e] = out.beta != 0.0f ? fmaf(out.beta, to[e], out.alpha * from[e])  // as the sums do
                                 : out.alpha * from[e];
    }
    from += kVector * EpilogueStaging::kStride;
    to += kVector * static_cast<long long>(out.ldc);
  }
}

// Puts accumulator columns 32 c .. 32 c + 31 (kChunk = c) of this warp's 16 rows in its staging
// buffer, through the lane's two row pointers.
template <int kChunk, int kN>
__device__ __forceinline__ void stage_accumulator_chunk(const float (&acc)[kN / 2],
                                                        float* const (&pair_rows)[2]) {
#pragma unroll
  for (int jj = 0; jj < EpilogueStaging::kColumns / 8; ++jj) {
    const int j = EpilogueStaging::kColumns / 8 * kChunk + jj;
    *reinterpret_cast<float2*>(pair_rows[0] + 8 * jj) = make_float2(acc[4 * j], acc[4 * j + 1]);
    *reinterpret_cast<float2*>(pair_rows[1] + 8 * jj) = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
  }
}

// Stages chunk `chunk` (stage()) and stores it kVector floats a lane; false past C's last column
// (the same for the whole warp).
template <int kVector, class Stage>
__device__ __forceinline__ bool store_chunk(const cudalabs::Bf16GemmArgs& out, float* staging,
                                            int warp_row0, int col0, int chunk, Stage stage) {
  const int chunk_col0 = col0 + EpilogueStaging::kColumns * chunk;
  if (chunk_col0 >= out.n) return false;
  __syncwarp();  // the last chunk's rows are read
  stage();
  __syncwarp();
  store_staged_rows<kVector>(out, staging, warp_row0, chunk_col0);
  return true;
}

// Stores a warpgroup's m64nN accumulators (rows row0 .. row0 + 63 of `out`) through `staging`,
// this warp's EpilogueStaging buffer, kVector floats a store, chunk by chunk (unrolled: the
// accumulators are named by constants, so they stay in registers and each chunk's die after it).
template <int kVector, int kN>
__device__ __forceinline__ void store_chunks(const cudalabs::Bf16GemmArgs& out,
                                             const float (&acc)[kN / 2], int warp_row0, int col0,
                                             float* staging, float* const (&pair_rows)[2]) {
  [&]<int... kChunk>(std::integer_sequence<int, kChunk...>) {
    (store_chunk<kVector>(out, staging, warp_row0, col0, kChunk,
                          [&] { stage_accumulator_chunk<kChunk, kN>(acc, pair_rows); }) &&
     ...);
  }
  (std::make_integer_sequence<int, kN / EpilogueStaging::kColumns>{});
}

// Stores a warpgroup's m64nN accumulators (rows row0 .. row0 + 63 of `out`) through `staging`,
// this warp's EpilogueStaging buffer, `width` floats a store (staged_store_width). The width is
// chosen once, outside the chunks: with the three widths' code side by side in every chunk, the
// 256-wide kernel was 258 KiB of instructions (128: 160 KiB), and every tile's epilogue fetched its
// way through them again from L2 (Nsight Compute at 6158 x 376 x 24, where the epilogue is the
// work: warps stalled 11-12 cycles an issue waiting for instructions). Now a tile runs one width's
// code, in one piece.
template <int kN>
__device__ __forceinline__ void store_warpgroup_tile_staged(const cudalabs::Bf16GemmArgs& out,
                                                            const float (&acc)[kN / 2], int row0,
                                                            int col0, float* staging, int width) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int warp_row0 = row0 + EpilogueStaging::kRows * warp;
  if (warp_row0 >= out.m) return;  // the same for the whole warp
  float* const pair_rows[2] = {
      staging + (lane / 4) * EpilogueStaging::kStride + 2 * (lane % 4),
      staging + (lane / 4 + 8) * EpilogueStaging::kStride + 2 * (lane % 4)};
  if (width == 4) {
    store_chunks<4, kN>(out, acc, warp_row0, col0, staging, pair_rows);
  } else if (width == 2) {
    store_chunks<2, kN>(out, acc, warp_row0, col0, staging, pair_rows);
  } else {
    store_chunks<1, kN>(out, acc, warp_row0, col0, staging, pair_rows);
  }
}

}  // namespace
}  // namespace lab11
