// Issue 53, session 49: lab 11's epilogue where C's rows are not 16-byte aligned, each store a
// row's 32 floats from a 32-byte boundary (whole sectors), for bench_cstore11.cu. The solution's
// staged store (staged_store.cuh) writes a row's 32 columns of a chunk a float a lane from the
// chunk's first column: off 16 bytes, every such store begins and ends inside a sector, and the
// next chunk's store completes it. Here each row's window is moved back by the row's floats past
// a sector (0 to 7): the warp's staging rows keep the last 8 columns of the chunk before (the
// first 8 of the 40 floats a row has), so a window reaches back into them, and after the last
// chunk one more window writes what is left. Only a tile's first and last sectors of a row are
// written in part (the neighbouring tile writes the rest). Included after the solution's kernels.
#pragma once

namespace lab11 {
namespace {

// The window of one chunk: columns chunk_col0 - delta .. chunk_col0 - delta + 31 of each of this
// warp's `rows` rows (delta: the row's floats past a sector at chunk_col0), those in [lo, hi).
__device__ __forceinline__ void store_sector_window(const cudalabs::Bf16GemmArgs& out,
                                                    const float* staging, int warp_row0, int rows,
                                                    int chunk_col0, int lo, int hi) {
  constexpr int S = EpilogueStaging::kStride;
  const int lane = threadIdx.x % 32;
#pragma unroll 4
  for (int r = 0; r < rows; ++r) {
    float* row_c = out.c + static_cast<long long>(warp_row0 + r) * out.ldc;
    const int delta =
        static_cast<int>((reinterpret_cast<std::uintptr_t>(row_c + chunk_col0) / 4) % 8);
    const int col = chunk_col0 - delta + lane;
    if (col >= lo && col < hi) {
      const float v = staging[r * S + 8 - delta + lane];
      row_c[col] = out.beta != 0.0f ? fmaf(out.beta, row_c[col], out.alpha * v) : out.alpha * v;
    }
  }
}

// Moves each staged row's last 8 columns (floats 32..39) to its first 8, for the next window.
__device__ __forceinline__ void carry_sector_columns(float* staging) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const int i = lane * 4 + t, row = i / 8, col = i % 8;
    staging[row * EpilogueStaging::kStride + col] =
        staging[row * EpilogueStaging::kStride + 32 + col];
  }
}

// Stores a warpgroup's m64nN accumulators (rows row0 .. row0 + 63 of `out`) through `staging`,
// this warp's EpilogueStaging buffer, in windows that begin on sectors (above).
template <int kN>
__device__ __forceinline__ void store_warpgroup_tile_sectors(const cudalabs::Bf16GemmArgs& out,
                                                             const float (&acc)[kN / 2], int row0,
                                                             int col0, float* staging) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int warp_row0 = row0 + EpilogueStaging::kRows * warp;
  if (warp_row0 >= out.m) return;  // the same for the whole warp
  const int rows = min(EpilogueStaging::kRows, out.m - warp_row0);
  float* const pair_rows[2] = {
      staging + (lane / 4) * EpilogueStaging::kStride + 8 + 2 * (lane % 4),
      staging + (lane / 4 + 8) * EpilogueStaging::kStride + 8 + 2 * (lane % 4)};
  int last = col0, next = col0;  // the last chunk's first column; the first column not written
  [&]<int... kChunk>(std::integer_sequence<int, kChunk...>) {
    ([&] {
      const int chunk_col0 = col0 + EpilogueStaging::kColumns * kChunk;
      if (chunk_col0 >= out.n) return false;
      __syncwarp();  // the last window's reads are done
      if (kChunk > 0) {
        carry_sector_columns(staging);
        __syncwarp();
      }
      stage_accumulator_chunk<kChunk, kN>(acc, pair_rows);
      __syncwarp();
      last = chunk_col0;
      next = min(chunk_col0 + EpilogueStaging::kColumns, out.n);
      store_sector_window(out, staging, warp_row0, rows, chunk_col0, col0, next);
      return true;
    }() &&
     ...);
  }
  (std::make_integer_sequence<int, kN / EpilogueStaging::kColumns>{});
  // what the last window left, its chunk's last `delta` columns: the window one chunk on
  __syncwarp();
  carry_sector_columns(staging);
  __syncwarp();
  store_sector_window(out, staging, warp_row0, rows, last + EpilogueStaging::kColumns, col0, next);
}

}  // namespace
}  // namespace lab11
