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

/// Counts one arrival of the launch tagged `tag` on `word` (one thread) and returns the arrivals
/// so far, this one included. A word holding another tag (an earlier launch's) counts as none.
__device__ __forceinline__ int arrive_tagged(unsigned long long* word, unsigned long long tag) {
  constexpr unsigned long long kCountMask = (1ull << kArrivalCountBits) - 1;
  unsigned long long seen = *reinterpret_cast<volatile unsigned long long*>(word);
  while (true) {
    const unsigned long long count =
        (seen >> kArrivalCountBits) == tag ? (seen & kCountMask) : 0ull;
    const unsigned long long wanted = (tag << kArrivalCountBits) | (count + 1);
    const unsigned long long before = atomicCAS(word, seen, wanted);
    if (before == seen) return static_cast<int>(count + 1);
    seen = before;
  }
}

/// C(row0 .. row0 + rows - 1, col0 .. col0 + cols - 1) = alpha * (sum of `parts` parts, part 0
/// first) + beta * C, by the `threads` threads of a group (this one is `thread`), four columns a
/// thread at a time. The parts lie in `workspace`, ldw floats a row (a multiple of 4, 16-byte
/// aligned), part s at s * f.slice_floats; col0 is a multiple of 4. The loads bypass L1, which
/// may hold lines of the workspace from before the other parts were stored.
__device__ __forceinline__ void sum_parts_into_c(const SplitFinish& f, const float* workspace,
                                                 int ldw, int parts, int row0, int rows, int col0,
                                                 int cols, int thread, int threads) {
  const GemmOutput& out = f.out;
  const int quads = (cols + 3) / 4;
  const bool c_vector = reinterpret_cast<std::uintptr_t>(out.c) % 16 == 0 && out.ldc % 4 == 0;
  for (int g = thread; g < rows * quads; g += threads) {
    const int row = row0 + g / quads, col = col0 + g % quads * 4;
    const int valid = min(4, col0 + cols - col);
    const float* from = workspace + static_cast<long long>(row) * ldw + col;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int s = 0; s < parts; ++s) {
      const float4 part = __ldcg(reinterpret_cast<const float4*>(from + s * f.slice_floats));
      sum.x += part.x;
      sum.y += part.y;
      sum.z += part.z;
      sum.w += part.w;
    }
    float* c = out.c + static_cast<long long>(row) * out.ldc + col;
    if (c_vector && valid == 4) {
      store_gemm_result4(c, sum, out.alpha, out.beta);
      continue;
    }
    const float values[4] = {sum.x, sum.y, sum.z, sum.w};
    for (int q = 0; q < valid; ++q) store_gemm_result(c + q, values[q], out.alpha, out.beta);
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
    *last_part = arrive_tagged(f.arrivals + region, f.tag) == parts;
    __threadfence();  // the arrival, before the loads of the other parts
  }
  group_sync();
  if (*last_part)
    sum_parts_into_c(f, workspace, ldw, parts, row0, rows, col0, cols, thread, threads);
}

}  // namespace cudalabs
