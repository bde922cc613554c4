// Lab 11, given: the kernel `best` runs where a short K leaves a GEMM mostly writing C
// (best_plan.h: short_k_pays). Nothing here is a TODO.
//
// 539 x 6046 x 24 writes 13 MB of C and does 0.16 GFLOP. The warp-specialized kernel spends such a
// shape on what surrounds its k-blocks (the tensor maps, the pipeline's fill, a copy of B where
// TMA cannot read its rows): 15.4 us a call where cuBLAS took 9.0 (H200). Here a block of 8 warps
// takes a kShortKRows x kShortKCols tile of C and K in chunks of kShortKChunk, staged in two
// buffers of shared memory, the next chunk on its way while this one is multiplied: cp.async as
// wide as the operand's rows allow (16 bytes, or 4 where they are 4-byte aligned; zeros past M, N
// and K), element by element through registers where they are only 2-byte aligned. A block's
// small grids leave it alone on its SM, where issuing instructions is what takes the time, so a
// thread's copies keep their addresses from chunk to chunk. Each warp multiplies a 32 x 32 piece
// with mma.sync (ldmatrix from rows padded 16 bytes apart). The accumulators then go through
// shared memory, so that a warp's stores are whole rows of C: 512 contiguous bytes, 16 at a time
// where C's rows allow, at any alignment otherwise.
//
// The same kernel takes a small C over a long K (135 x 80 x 2312: three tiles), whose few blocks
// would each walk all of K: the launch cuts K into slices, one a block of a cluster, with six
// buffers of chunks on their way (a block nearly alone on its SM waits on DRAM otherwise), and the
// cluster's blocks sum their tiles through distributed shared memory (sum_slices_in_cluster).
#pragma once

#include "common/async_copy.cuh"
#include "common/gemm_device.cuh"
#include "common/gemm_types.h"
#include "staging.cuh"
#include "tensor_core_ptx.cuh"
#include "tiles.h"

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace lab11 {
namespace {

// A thread's cp.async copies of an operand's chunks, `kRows` x `kCols` values a chunk, `kBytes` (16
// or 4) a copy: the operand's rows are so aligned. Its copies keep their rows (kRowsApart apart)
// and their column within every chunk, so a chunk costs a few additions a copy, not the address
// arithmetic of each (a kernel alone on its SM spends its time issuing instructions).
template <int kRows, int kCols, int kBytes>
struct ChunkCopies {
  static_assert(kBytes == 16 || kBytes == 4, "cp.async of 16 or 4 bytes");
  static constexpr int kValues = kBytes / 2;                   // values a copy
  static constexpr int kPerRow = kCols / kValues;              // copies a row of the chunk
  static constexpr int kRowsApart = kShortKThreads / kPerRow;  // rows between its copies
  static constexpr int kCount = kRows / kRowsApart;            // copies a thread
  static_assert(kShortKThreads % kPerRow == 0 && kRows % kRowsApart == 0, "whole rows a pass");

  const __nv_bfloat16* at;  ///< the thread's first value of the next chunk
  int row, col;             ///< its first row and its column in the matrix, next chunk
  int to;                   ///< its first value's place in a chunk's buffer

  /// The copies of the chunks of `matrix` (ld `ld`) from (row0, col0), into buffers `to_ld` apart.
  __device__ __forceinline__ ChunkCopies(const __nv_bfloat16* matrix, int ld, int row0, int col0,
                                         int to_ld) {
    const int t = static_cast<int>(threadIdx.x);
    row = row0 + t / kPerRow;
    col = col0 + t % kPerRow * kValues;
    at = matrix + static_cast<long long>(row) * ld + col;
    to = t / kPerRow * to_ld + t % kPerRow * kValues;
  }

  /// Starts the next chunk's copies into `buffer` (rows `to_ld` apart), zeros past `row_count` x
  /// `col_count`, reading only the values inside; then moves on to the chunk after, kRows further
  /// down the matrix when `kDown` (K runs down B's rows), else kCols along (A's).
  template <bool kDown>
  __device__ __forceinline__ void start(__nv_bfloat16* buffer, int to_ld,
                                        const __nv_bfloat16* matrix, int ld, int row_count,
                                        int col_count) {
    const int cols_inside = min(max(col_count - col, 0), kValues);
    const __nv_bfloat16* from = at;
#pragma unroll
    for (int i = 0; i < kCount; ++i) {
      const int inside = row + i * kRowsApart < row_count ? cols_inside : 0;
      __nv_bfloat16* into = buffer + to + i * kRowsApart * to_ld;
      if constexpr (kBytes == 16) {
        cudalabs::async_copy_16_zero_fill(into, inside > 0 ? from : matrix, inside * 2);
      } else {
        cudalabs::async_copy_4_zero_fill(into, inside > 0 ? from : matrix, inside * 2);
      }
      from += static_cast<long long>(kRowsApart) * ld;
    }
    if constexpr (kDown) {
      row += kRows;
      at += static_cast<long long>(kRows) * ld;
    } else {
      col += kCols;
      at += kCols;
    }
  }
};

// The same chunk where the rows are only 2-byte aligned: element by element through this
// thread's registers, a warp's lanes on consecutive values of a row, so that each load
// instruction reads 64 contiguous bytes (stage_chunk's element path gives a thread 8 consecutive
// values: its loads 16 bytes apart). In two halves: `load` the next chunk's values before this
// chunk is multiplied and `store` them after, so that their trip from memory overlaps the
// multiply. (Loaded and stored in one go, each chunk waited for its own loads: split, the kernel
// took 0.927 of the time where neither operand's rows are 16-byte aligned, 120 x 8244 x 255 14.2
// -> 12.2 us on an H200, docs/data/history/lab11_pairs_short_k_s30_nvidia-h200/.) Two values
// share a 32-bit register while they wait: the kernel has 80 registers a thread (three blocks an
// SM), and a register each spilled.
template <int kRows, int kCols>
struct ElementChunk {
  static_assert(kRows * kCols % (2 * kShortKThreads) == 0, "every thread holds as many pairs");
  static constexpr int kValues = kRows * kCols / kShortKThreads;
  static constexpr int kRowsApart = kShortKThreads / kCols;  // a warp: consecutive values of a row
  std::uint32_t pairs[kValues / 2];

  __device__ __forceinline__ void load(const __nv_bfloat16* matrix, int ld, int row0, int col0,
                                       int row_count, int col_count) {
    const int col = col0 + static_cast<int>(threadIdx.x) % kCols;
    const int first_row = row0 + static_cast<int>(threadIdx.x) / kCols;
    // One pointer stepping kRowsApart rows a value: 64-bit addresses cost two registers each.
    const auto* bits = reinterpret_cast<const unsigned short*>(matrix) +
                       static_cast<long long>(first_row) * ld + col;
    const long long step = static_cast<long long>(kRowsApart) * ld;
    const bool in_columns = col < col_count;
    const auto value = [&](int i) -> std::uint32_t {
      return in_columns && first_row + i * kRowsApart < row_count ? bits[i * step] : 0u;
    };
#pragma unroll
    for (int i = 0; i < kValues / 2; ++i) pairs[i] = value(2 * i) | value(2 * i + 1) << 16;
  }

  __device__ __forceinline__ void store(__nv_bfloat16* to, int to_ld) const {
    const int col = static_cast<int>(threadIdx.x) % kCols;
    const int first_row = static_cast<int>(threadIdx.x) / kCols;
    auto* to_bits = reinterpret_cast<unsigned short*>(to);
#pragma unroll
    for (int i = 0; i < kValues; ++i)
      to_bits[(first_row + i * kRowsApart) * to_ld + col] =
          static_cast<unsigned short>(pairs[i / 2] >> (16 * (i % 2)));
  }
};

// Stores rows first_row .. end_row - 1 of C's kShortKRows x kShortKCols tile (from row0, col0),
// held in shared memory kCLd floats a row, a warp a row: whole rows of C, 16 bytes a lane where
// C's rows allow, at any alignment otherwise.
template <int kCLd>
__device__ __forceinline__ void store_tile_rows(const cudalabs::Bf16GemmArgs& args,
                                                const float* c_tile, int row0, int col0,
                                                int first_row, int end_row) {
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const bool c_vector = reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0 && args.ldc % 4 == 0;
  for (int row = first_row + warp; row < end_row && row0 + row < args.m; row += kShortKWarps) {
    float* c_row = args.c + static_cast<long long>(row0 + row) * args.ldc + col0;
    const float* tile_row = c_tile + row * kCLd;
    if (c_vector && col0 + lane * 4 + 3 < args.n) {
      cudalabs::store_gemm_result4(c_row + lane * 4,
                                   *reinterpret_cast<const float4*>(tile_row + lane * 4),
                                   args.alpha, args.beta);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int col = c_vector ? lane * 4 + j : lane + 32 * j;
        if (col0 + col < args.n)
          cudalabs::store_gemm_result(c_row + col, tile_row[col], args.alpha, args.beta);
      }
    }
  }
}

#if __CUDA_ARCH__ >= 900
// Where K is cut into slices, one a block of the cluster (gridDim.y of them): each block's partial
// tile lies in its own shared memory (kCLd floats a row), and each block sums a band of the
// tile's rows from all of them, slice 0 first (a fixed order: the same bits at every run), through
// distributed shared memory, into its own tile's band, which no other block reads; then stores
// that band of C. No partial C goes through global memory. The last cluster barrier keeps every
// tile alive until the others have read it.
template <int kCLd>
__device__ __forceinline__ void sum_slices_in_cluster(const cudalabs::Bf16GemmArgs& args,
                                                      float* c_tile, int row0, int col0) {
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  const int slices = static_cast<int>(cluster.num_blocks());
  const int rank = static_cast<int>(cluster.block_rank());
  const int band = (kShortKRows + slices - 1) / slices;
  const int first_row = rank * band, end_row = min(kShortKRows, first_row + band);
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  cluster.sync();  // every slice's tile is in its shared memory
  for (int row = first_row + warp; row < end_row && row0 + row < args.m; row += kShortKWarps) {
    const int at = row * kCLd + lane * 4;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int slice = 0; slice < slices; ++slice) {
      const float4 part =
          *reinterpret_cast<const float4*>(cluster.map_shared_rank(c_tile, slice) + at);
      sum.x += part.x;
      sum.y += part.y;
      sum.z += part.z;
      sum.w += part.w;
    }
    *reinterpret_cast<float4*>(c_tile + at) = sum;
  }
  cluster.barrier_arrive();  // this block has read the others' tiles
  __syncthreads();           // the band's sums, for the warps that store them
  store_tile_rows<kCLd>(args, c_tile, row0, col0, first_row, end_row);
  cluster.barrier_wait();  // the others have read this one's
}
#endif

// kABytes / kBBytes: the widest copies the operand's rows allow, 16, 4 or 2 (element by element;
// best_plan.h: short_k_copy_bytes). kStages buffers of chunks: 2 where K is whole (three blocks an
// SM), kSlicedStages where the launch cuts K into gridDim.y slices of slice_k values (a multiple of
// kShortKChunk), one a block of a cluster of gridDim.y blocks (sum_slices_in_cluster).
template <int kABytes, int kBBytes, int kStages>
__global__ void __launch_bounds__(kShortKThreads,
                                  kStages == 2 ? kShortKBlocksPerSm : kSlicedBlocksPerSm)
    short_k_mma_kernel(cudalabs::Bf16GemmArgs args, int slice_k) {
#if LAB11_BF16_TENSOR_CORES
  constexpr int kALd = kShortKChunk + kShortKPad;  // A's chunk: [row][k]
  constexpr int kBLd = kShortKCols + kShortKPad;   // B's chunk: [k][column]
  constexpr int kCLd = kShortKCols + kShortKPad;   // C's tile: [row][column], FP32
  constexpr int kAValues = kShortKRows * kALd;
  extern __shared__ float4 short_k_shared[];
  auto* buffers = reinterpret_cast<__nv_bfloat16*>(short_k_shared);
  const auto a_chunk = [&](int buffer) { return buffers + buffer * kShortKBufferValues; };
  const auto b_chunk = [&](int buffer) { return a_chunk(buffer) + kAValues; };

  // Tiles numbered along C's rows: blocks side by side share A's rows.
  const int col_tiles = (args.n + kShortKCols - 1) / kShortKCols;
  const int row0 = static_cast<int>(blockIdx.x) / col_tiles * kShortKRows;
  const int col0 = static_cast<int>(blockIdx.x) % col_tiles * kShortKCols;
  const int k_begin = static_cast<int>(blockIdx.y) * slice_k;
  const int k_end = min(args.k, k_begin + slice_k);  // zeros past the slice's end, as past K's
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int warp_row = warp / 4 * 32, warp_col = warp % 4 * 32;  // the warp's 32 x 32 piece

  // A chunk's copies start (cp.async, or the element path's loads into registers) before the chunk
  // kStages - 1 ahead of it is multiplied; the registers go to shared memory after (finish_chunk).
  // Chunks start in order, each copier moving on to the next.
  constexpr bool kElementsA = kABytes == 2, kElementsB = kBBytes == 2;
  ChunkCopies<kShortKRows, kShortKChunk, kElementsA ? 16 : kABytes> a_words(args.a, args.lda, row0,
                                                                            k_begin, kALd);
  ChunkCopies<kShortKChunk, kShortKCols, kElementsB ? 16 : kBBytes> b_words(args.b, args.ldb,
                                                                            k_begin, col0, kBLd);
  ElementChunk<kShortKRows, kShortKChunk> a_values;
  ElementChunk<kShortKChunk, kShortKCols> b_values;
  const auto start_chunk = [&](int buffer, int k0) {
    if constexpr (kElementsA) {
      a_values.load(args.a, args.lda, row0, k0, args.m, k_end);
    } else {
      a_words.template start<false>(a_chunk(buffer), kALd, args.a, args.lda, args.m, k_end);
    }
    if constexpr (kElementsB) {
      b_values.load(args.b, args.ldb, k0, col0, k_end, args.n);
    } else {
      b_words.template start<true>(b_chunk(buffer), kBLd, args.b, args.ldb, k_end, args.n);
    }
    cudalabs::async_copy_commit();
  };
  const auto finish_chunk = [&](int buffer) {
    if constexpr (kElementsA) a_values.store(a_chunk(buffer), kALd);
    if constexpr (kElementsB) b_values.store(b_chunk(buffer), kBLd);
  };

  float acc[2][4][4] = {};  // [m16 tile][n8 tile][accumulator]
  const int chunks = (k_end - k_begin + kShortKChunk - 1) / kShortKChunk;
#pragma unroll
  for (int ahead = 0; ahead < kStages - 1; ++ahead) {  // a copy group each, empty past the slice
    if (ahead < chunks) {
      start_chunk(ahead, k_begin + ahead * kShortKChunk);
      finish_chunk(ahead);
    } else {
      cudalabs::async_copy_commit();
    }
  }
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const int buffer = chunk % kStages;
    const int ahead = chunk + kStages - 1;  // its buffer: freed by the last barrier
    if (ahead < chunks) {
      start_chunk(ahead % kStages, k_begin + ahead * kShortKChunk);
    } else {
      cudalabs::async_copy_commit();
    }
    cudalabs::async_copy_wait<kStages - 1>();
    __syncthreads();  // the chunk has landed for every thread
    const __nv_bfloat16* a = a_chunk(buffer);
    const __nv_bfloat16* b = b_chunk(buffer);
#pragma unroll
    for (int k16 = 0; k16 < kShortKChunk; k16 += 16) {
      std::uint32_t a_frag[2][4], b_frag[2][4];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)  // lanes 0-15: rows 0-15 at k; 16-31: the same at k + 8
        ptx::ldmatrix_x4<false>(
            a_frag[mi],
            ptx::shared_address(a + (warp_row + mi * 16 + lane % 16) * kALd + k16 + lane / 16 * 8));
#pragma unroll
      for (int nj = 0; nj < 2; ++nj)  // matrix i = lane / 8: k + 8 (i % 2), columns + 8 (i / 2)
        ptx::ldmatrix_x4<true>(b_frag[nj],
                               ptx::shared_address(b + (k16 + lane / 8 % 2 * 8 + lane % 8) * kBLd +
                                                   warp_col + nj * 16 + lane / 16 * 8));
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
          ptx::mma_m16n8k16_bf16(acc[mi][ni], a_frag[mi], b_frag[ni / 2][ni % 2 * 2],
                                 b_frag[ni / 2][ni % 2 * 2 + 1]);
    }
    if (ahead < chunks) finish_chunk(ahead % kStages);
    __syncthreads();  // every warp is done with this buffer, and the chunk ahead is in its own
  }

  // The accumulators into C's tile in shared memory (the buffers' place), then whole rows out.
  float* c_tile = reinterpret_cast<float*>(short_k_shared);
#pragma unroll
  for (int mi = 0; mi < 2; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      float* at =
          c_tile + (warp_row + mi * 16 + lane / 4) * kCLd + warp_col + ni * 8 + lane % 4 * 2;
      *reinterpret_cast<float2*>(at) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
      *reinterpret_cast<float2*>(at + 8 * kCLd) = make_float2(acc[mi][ni][2], acc[mi][ni][3]);
    }
  __syncthreads();
  if constexpr (kStages != 2) {
#if __CUDA_ARCH__ >= 900
    if (gridDim.y > 1) return sum_slices_in_cluster<kCLd>(args, c_tile, row0, col0);
#else
    if (gridDim.y > 1) __trap();  // clusters are Hopper's: the launch never slices elsewhere
#endif
  }
  store_tile_rows<kCLd>(args, c_tile, row0, col0, 0, kShortKRows);
#endif
}

}  // namespace
}  // namespace lab11
