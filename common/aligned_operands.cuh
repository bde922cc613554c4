/// @file aligned_operands.cuh
/// @brief A GEMM's A and B as a kernel with 16-byte loads can read them: the operands themselves
/// when they allow it, otherwise copies made in one pass into scratch memory whose rows are padded
/// to 16 bytes.
///
/// A 16-byte load needs its address 16-byte aligned, so a matrix allows them on every row only when
/// it starts 16-byte aligned and its leading dimension is a multiple of 16 bytes. A kernel that
/// must fall back to element loads pays for it on every one of its O(M N K) loads; a copy costs one
/// read and one write of the matrix, O(M K) or O(K N). Lab 11's TMA kernels copy whatever TMA
/// cannot read; lab 07's `best` copies where its model says the copy pays.
#pragma once

#include "common/cuda_check.h"
#include "common/gemm_types.h"
#include "common/launch_utils.h"
#include "common/row_alignment.h"
#include "common/stream_scratch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace cudalabs {

/// One matrix to copy: rows x cols of `source` (leading dimension ld) into `packed` (leading
/// dimension packed_ld, a multiple of the chunk, 16-byte aligned).
template <class Input>
struct RepackJob {
  const Input* source = nullptr;  ///< the matrix to copy
  int ld = 0;                     ///< its leading dimension, elements
  Input* packed = nullptr;        ///< where the copy goes (16-byte aligned)
  int packed_ld = 0;              ///< the copy's leading dimension, a multiple of the chunk
  int rows = 0;                   ///< rows to copy (0: nothing)
  int cols = 0;                   ///< columns to copy

  /// 16-byte chunks of the copy: one thread each.
  long long chunks() const {
    return static_cast<long long>(rows) * ceil_div(cols, kChunkElements<Input>);
  }
  /// The address one past the matrix's last element: no load may reach it.
  __device__ std::uintptr_t end() const {
    return reinterpret_cast<std::uintptr_t>(source + static_cast<long long>(rows - 1) * ld + cols);
  }
};

/// The 16 bytes from `address`, which is off a 16-byte boundary (but on a 2-byte one): the two
/// aligned 16-byte lines it spans, loaded whole, then shifted into place. The first line may begin
/// before the matrix; it never leaves the allocation, which CUDA's allocators start 256-byte
/// aligned. The caller makes sure the second line ends inside the matrix.
__device__ __forceinline__ uint4 load_16_across_lines(std::uintptr_t address) {
  const auto* line = reinterpret_cast<const uint4*>(address & ~std::uintptr_t{15});
  const uint4 low = __ldg(line), high = __ldg(line + 1);
  const std::uint32_t w[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
  const unsigned shift = static_cast<unsigned>(address & 15);  // bytes
  // y[i] = w[i + shift / 4], chosen by two selects a word so that no array leaves registers
  std::uint32_t x[6], y[5];
#pragma unroll
  for (int i = 0; i < 6; ++i) x[i] = (shift & 8) != 0 ? w[i + 2] : w[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) y[i] = (shift & 4) != 0 ? x[i + 1] : x[i];
  const unsigned bits = (shift & 3) * 8;
  return make_uint4(__funnelshift_r(y[0], y[1], bits), __funnelshift_r(y[1], y[2], bits),
                    __funnelshift_r(y[2], y[3], bits), __funnelshift_r(y[3], y[4], bits));
}

/// Loads chunk `chunk` of `job` into `value` and returns where it goes: one aligned load where the
/// source chunk is aligned, two where it is whole but off its line (load_16_across_lines), element
/// loads only at a row's ragged end and at the matrix's last line. Columns past `cols` in a row's
/// last chunk become zeros.
template <class Input>
__device__ __forceinline__ uint4* load_chunk(const RepackJob<Input>& job, long long chunk,
                                             uint4& value) {
  constexpr int kChunk = kChunkElements<Input>;
  const int chunks_per_row = (job.cols + kChunk - 1) / kChunk;
  long long row;
  int col;
  if (chunk <= INT_MAX) {  // a 32-bit division where the index allows: most copies
    row = static_cast<int>(chunk) / chunks_per_row;
    col = (static_cast<int>(chunk) - static_cast<int>(row) * chunks_per_row) * kChunk;
  } else {
    row = chunk / chunks_per_row;
    col = static_cast<int>(chunk - row * chunks_per_row) * kChunk;
  }
  const Input* from = job.source + row * job.ld + col;
  const auto address = reinterpret_cast<std::uintptr_t>(from);
  if (col + kChunk <= job.cols && address % 16 == 0) {
    value = __ldg(reinterpret_cast<const uint4*>(from));
  } else if (col + kChunk <= job.cols && (address & ~std::uintptr_t{15}) + 32 <= job.end()) {
    value = load_16_across_lines(address);
  } else {
    alignas(16) Input values[kChunk];
#pragma unroll
    for (int e = 0; e < kChunk; ++e) values[e] = col + e < job.cols ? from[e] : Input(0.0f);
    value = *reinterpret_cast<const uint4*>(values);
  }
  return reinterpret_cast<uint4*>(job.packed + row * job.packed_ld + col);
}

/// Chunks a thread of repack_rows_kernel has in flight: its loads of them are issued before any of
/// their stores, so that the copy is not one memory latency a chunk.
inline constexpr int kRepackChunksAhead = 4;
/// repack_rows_kernel's threads a block.
inline constexpr int kRepackThreads = 256;
/// repack_rows_kernel's blocks an SM, which its grid puts on every SM (a register bound makes sure
/// they fit): 64 KiB of loads in flight an SM.
inline constexpr int kRepackBlocksPerSm = 4;

/// Copies `first`'s `first_chunks` chunks and then `second`'s (possibly none) on a grid that walks
/// them kRepackChunksAhead at a time: A and B in one launch, whose host cost a small GEMM would
/// otherwise pay twice. The grid is the SMs' resident blocks at most (a copy of a block's chunks
/// each would take as many trips to memory as it has waves).
template <class Input>
__global__ void __launch_bounds__(kRepackThreads, kRepackBlocksPerSm)
    repack_rows_kernel(RepackJob<Input> first, long long first_chunks, RepackJob<Input> second,
                       long long chunks) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long start = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       start < chunks; start += kRepackChunksAhead * step) {
    uint4 values[kRepackChunksAhead];
    uint4* to[kRepackChunksAhead];
#pragma unroll
    for (int u = 0; u < kRepackChunksAhead; ++u) {
      const long long chunk = start + u * step;
      to[u] = chunk >= chunks        ? nullptr
              : chunk < first_chunks ? load_chunk(first, chunk, values[u])
                                     : load_chunk(second, chunk - first_chunks, values[u]);
    }
#pragma unroll
    for (int u = 0; u < kRepackChunksAhead; ++u) {
      if (to[u] != nullptr) *to[u] = values[u];
    }
  }
}

/// `args` with A and/or B replaced by copies whose rows allow 16-byte loads (leading dimension
/// rounded up to 16 bytes), made on `stream` into the stream's scratch (common/stream_scratch.h),
/// lent to this object while it lives: launch the GEMM on `stream` before then.
template <class Input>
class AlignedOperands {
 public:
  /// Copies A when `pack_a`, B when `pack_b`, their rows `row_elements` apart at least (a multiple
  /// of the 16-byte chunk: 128 bytes' worth puts every row on a cache line of its own); `who` names
  /// the caller in errors.
  AlignedOperands(const GemmArgsOf<Input>& args, bool pack_a, bool pack_b, cudaStream_t stream,
                  const char* who, int row_elements = kChunkElements<Input>)
      : args_(args), stream_(stream), who_(who) {
    if (!pack_a && !pack_b) return;
    const int lda = ceil_div(args.k, row_elements) * row_elements;
    const int ldb = ceil_div(args.n, row_elements) * row_elements;
    const std::size_t a_elements = pack_a ? static_cast<std::size_t>(args.m) * lda : 0;
    const std::size_t b_elements = pack_b ? static_cast<std::size_t>(args.k) * ldb : 0;
    scratch_ = std::make_unique<StreamScratch>(stream, ScratchUse::kOperands,
                                               (a_elements + b_elements) * sizeof(Input));
    auto* packed = static_cast<Input*>(scratch_->data());  // 256-byte aligned
    RepackJob<Input> jobs[2];
    int count = 0;
    if (pack_a) {
      jobs[count++] = {args.a, args.lda, packed, lda, args.m, args.k};
      args_.a = packed;
      args_.lda = lda;
    }
    if (pack_b) {
      jobs[count++] = {args.b, args.ldb, packed + a_elements, ldb, args.k, args.n};
      args_.b = packed + a_elements;
      args_.ldb = ldb;
    }
    const long long chunks = jobs[0].chunks() + jobs[1].chunks();
    const long long blocks = std::min<long long>(ceil_div<long long>(chunks, kRepackThreads),
                                                 kRepackBlocksPerSm * multiprocessor_count());
    repack_rows_kernel<Input><<<checked_grid(blocks, 1, 1, who_), kRepackThreads, 0, stream_>>>(
        jobs[0], jobs[0].chunks(), jobs[1], chunks);
    CUDA_CHECK_LAUNCH(who_);
  }
  AlignedOperands(const AlignedOperands&) = delete;
  AlignedOperands& operator=(const AlignedOperands&) = delete;

  /// The arguments to launch with: the copies in place of the operands that were copied.
  const GemmArgsOf<Input>& args() const { return args_; }

 private:
  GemmArgsOf<Input> args_;
  cudaStream_t stream_;
  const char* who_;
  std::unique_ptr<StreamScratch> scratch_;  ///< the copies' memory (none when nothing is copied)
};

}  // namespace cudalabs
