// Lab 11 solution: the warp-specialized kernel's epilogue through the copy engine (TMA stores).
//
// Storing its tile with its own instructions, a consumer warpgroup starts its next unit's wgmmas
// only once the memory system has taken every store; with every SM's tiles ending together, that
// wait was 8 % of 4096^3's time and 23 % of 8192 x 8192 x 1024's (the kernel with its stores left
// out, docs/data/history/lab11_pairs_s44_nvidia-h100/). Here the warpgroup writes its 64 rows 32
// columns at a time into slots of shared memory (EpilogueSlot: one 128-byte line a row, swizzled
// as C's tensor map reads them), and one thread hands each slot to the copy engine and goes on. A
// slot is written again only once the engine has read it, so the warpgroup waits only where its
// tile has more chunks than it has slots, and its last slots' stores overlap the next unit.
#pragma once

#include "tensor_core_ptx.cuh"
#include "tiles.h"

#include <cuda.h>

namespace lab11 {
namespace {

// Stores a warpgroup's m64nN accumulators, times alpha, into C's rows row0 .. row0 + 63 from
// column col0 through `c_map` (C's tensor map: boxes of EpilogueSlot, past C not written), chunk by
// chunk through this warpgroup's kSlots slots at `slots`. `chunks` counts the chunks this
// warpgroup has handed over so far (the slot of the next one, and which are still being read): the
// same in all its threads. Named barrier `barrier` syncs the warpgroup; its thread 0 issues the
// copies, so it alone may wait for them (bulk groups are a thread's own).
template <int kN, int kSlots>
__device__ __forceinline__ void store_warpgroup_tile_by_copy(const float (&acc)[kN / 2],
                                                             const CUtensorMap& c_map, int row0,
                                                             int col0, int n, float alpha,
                                                             unsigned char* slots, int barrier,
                                                             int& chunks) {
  const int thread = threadIdx.x % 128, lane = thread % 32;
  // The lane's two rows of the 64 (r and r + 8: the same swizzle, r % 8) and its pair's byte in
  // its 16-byte chunk of a row.
  const int row = 16 * (thread / 32) + lane / 4, swizzle = row % 8, within = 8 * (lane % 2);
#pragma unroll
  for (int c = 0; c < kN / EpilogueSlot::kColumns; ++c) {
    if (col0 + EpilogueSlot::kColumns * c >= n) break;  // past C's last column: the whole group
    unsigned char* box = slots + (chunks % kSlots) * EpilogueSlot::kBytes;
    if (chunks >= kSlots) {  // the slot's last chunk must have been read
      if (thread == 0) ptx::bulk_wait_group_read<kSlots - 1>();
      ptx::named_barrier_sync<128>(barrier);
    }
#pragma unroll
    for (int jj = 0; jj < EpilogueSlot::kColumns / 8; ++jj) {
      const int j = EpilogueSlot::kColumns / 8 * c + jj;
      // columns 8 jj + 2 (lane % 4) and the next: 16-byte chunk 2 jj + (lane % 4) / 2 of the row
      const int at = ((2 * jj + (lane % 4) / 2) ^ swizzle) * 16 + within;
      *reinterpret_cast<float2*>(box + row * 128 + at) =
          make_float2(alpha * acc[4 * j], alpha * acc[4 * j + 1]);
      *reinterpret_cast<float2*>(box + (row + 8) * 128 + at) =
          make_float2(alpha * acc[4 * j + 2], alpha * acc[4 * j + 3]);
    }
    ptx::fence_proxy_async_shared();  // the writes, before the copy engine reads them
    ptx::named_barrier_sync<128>(barrier);
    if (thread == 0) {
      ptx::tma_store_2d(&c_map, box, col0 + EpilogueSlot::kColumns * c, row0);
      ptx::bulk_commit_group();
    }
    ++chunks;
  }
}

// Before a warpgroup's threads write its slots themselves (EpilogueStaging) or leave the kernel:
// the copy engine is done reading them (thread 0 waits, the group syncs on `barrier`), and, at the
// end, done writing C.
__device__ __forceinline__ void drain_copied_stores(int chunks, int barrier, bool at_end) {
  if (chunks == 0) return;
  if (threadIdx.x % 128 == 0) {
    if (at_end) {
      ptx::bulk_wait_group<0>();
    } else {
      ptx::bulk_wait_group_read<0>();
    }
  }
  if (!at_end) ptx::named_barrier_sync<128>(barrier);
}

}  // namespace
}  // namespace lab11
