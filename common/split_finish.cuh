/// @file split_finish.cuh
/// @brief A split GEMM's partial Cs summed in the launch that wrote them (split_finish.h): the
/// threads that stored one part of a region of C count its arrival on the region's word, and the
/// threads of the last part to arrive add every part of the region, part 0 first, into C. The order
/// is fixed, so the result does not depend on which part finished first, and it is the summing
/// kernel's (slice_sums.cuh) bit for bit. No thread waits for another part: the last to arrive does
/// the work, so the blocks need not run at the same time.
///
/// A kernel that never stores or arrives (a TODO) leaves C as it was: poisoned by the harness, it
/// is reported as not implemented, as an unsplit kernel's would be.
#pragma once

#include "common/gemm_device.cuh"
#include "common/split_finish.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace cudalabs {

/// Counts one arrival on `word` (one thread) and returns whether it was the last of `parts`; the
/// last moves the word on to the next launch's zero count, so that the words are never cleared.
/// One atomicAdd an arrival: parts that finish together do not retry one another's updates.
__device__ __forceinline__ bool arrive_last(unsigned long long* word, int parts) {
  constexpr unsigned long long kCountMask = (1ull << kArrivalCountBits) - 1;
  const unsigned long long before = atomicAdd(word, 1ull);
  if (static_cast<int>(before & kCountMask) + 1 != parts) return false;
  atomicAdd(word, (1ull << kArrivalCountBits) - static_cast<unsigned long long>(parts));
  return true;
}

/// Stores alpha * sum + beta * C into the columns of C at (row, col .. col + 3) that lie before
/// column `end`: one 16-byte store where C allows (`c_vector`) and all four do.
__device__ __forceinline__ void store_summed_group(const GemmOutput& out, int row, int col, int end,
                                                   float4 sum, bool c_vector) {
  const int valid = min(4, end - col);
  float* c = out.c + static_cast<long long>(row) * out.ldc + col;
  if (c_vector && valid == 4) {
    store_gemm_result4(c, sum, out.alpha, out.beta);
    return;
  }
  const float values[4] = {sum.x, sum.y, sum.z, sum.w};
  for (int q = 0; q < valid; ++q) store_gemm_result(c + q, values[q], out.alpha, out.beta);
}

/// C(row0 .. row0 + rows - 1, col0 .. col0 + cols - 1) = alpha * (sum of `parts` parts, part 0
/// first) + beta * C, by the `threads` threads of a group (this one is `thread`), kSumBatch groups
/// of four columns a thread at a time, or, where the region has no more groups than threads,
/// kSumBatch parts of a thread's one group at a time (a region of a few columns, summed one part at
/// a time, waits an L2 trip for every part). The parts lie in
/// `workspace`, ldw floats a row (a multiple of 4, 16-byte aligned), part s at s * f.slice_floats;
/// col0 is a multiple of 4. The loads bypass L1, which may hold lines of the workspace from before
/// the other parts were stored. Either way each sum adds the parts in order from 0.
__device__ __forceinline__ void sum_parts_into_c(const SplitFinish& f, const float* workspace,
                                                 int ldw, int parts, int row0, int rows, int col0,
                                                 int cols, int thread, int threads) {
  const GemmOutput& out = f.out;
  const int quads = (cols + 3) / 4, groups = rows * quads;
  const bool c_vector = reinterpret_cast<std::uintptr_t>(out.c) % 16 == 0 && out.ldc % 4 == 0;
  if (groups <= threads) {
    if (thread >= groups) return;
    const int row = row0 + thread / quads, col = col0 + thread % quads * 4;
    const float* from = workspace + static_cast<long long>(row) * ldw + col;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int first = 0; first < parts; first += kSumBatch) {
      float4 part[kSumBatch];
#pragma unroll
      for (int b = 0; b < kSumBatch; ++b)  // past the last part: a repeat, not added
        part[b] = __ldcg(
            reinterpret_cast<const float4*>(from + min(first + b, parts - 1) * f.slice_floats));
#pragma unroll
      for (int b = 0; b < kSumBatch; ++b) {
        if (first + b < parts) {
          sum.x += part[b].x;
          sum.y += part[b].y;
          sum.z += part[b].z;
          sum.w += part[b].w;
        }
      }
    }
    store_summed_group(out, row, col, col0 + cols, sum, c_vector);
    return;
  }
  for (int first = thread; first < groups; first += threads * kSumBatch) {
    const float* from[kSumBatch];
    float4 sum[kSumBatch];
#pragma unroll
    for (int b = 0; b < kSumBatch; ++b) {
      const int g = min(first + b * threads, groups - 1);  // past the end: a repeat, not stored
      from[b] = workspace + static_cast<long long>(row0 + g / quads) * ldw + col0 + g % quads * 4;
      sum[b] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll 2
    for (int s = 0; s < parts; ++s) {
#pragma unroll
      for (int b = 0; b < kSumBatch; ++b) {
        const float4 part = __ldcg(reinterpret_cast<const float4*>(from[b] + s * f.slice_floats));
        sum[b].x += part.x;
        sum[b].y += part.y;
        sum[b].z += part.z;
        sum[b].w += part.w;
      }
    }
#pragma unroll
    for (int b = 0; b < kSumBatch; ++b) {
      const int g = first + b * threads;
      if (g >= groups) break;
      store_summed_group(out, row0 + g / quads, col0 + g % quads * 4, col0 + cols, sum[b],
                         c_vector);
    }
  }
}

/// Called by every thread of a group of `threads` threads (`group_sync` is a barrier of exactly
/// that group) once it has stored its part of region `region` of C (rows row0 .. row0 + rows - 1,
/// columns col0 .. col0 + cols - 1) into the workspace: counts the part's arrival and, where it is
/// the last of the region's `parts` to arrive, sums all of them into C (sum_parts_into_c).
/// `last_part` is a shared word of the group's own.
template <class GroupSync>
__device__ __forceinline__ void finish_part(const SplitFinish& f, const float* workspace, int ldw,
                                            int region, int parts, int row0, int rows, int col0,
                                            int cols, int thread, int threads, int* last_part,
                                            GroupSync group_sync) {
  __threadfence();  // this thread's stores of the part, before the group's arrival
  group_sync();
  if (thread == 0) {
    *last_part = arrive_last(f.arrivals + region, parts);
    __threadfence();  // the arrival, before the loads of the other parts
  }
  group_sync();
  if (*last_part)
    sum_parts_into_c(f, workspace, ldw, parts, row0, rows, col0, cols, thread, threads);
}

}  // namespace cudalabs
