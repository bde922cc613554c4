/// @file labs/11_tensor_cores/unit_finish.cuh
/// @brief Lab 11, given: the end of a unit of work of the warp-specialized kernel when `best`
/// splits K and the launch sums the slices itself (work_units.h; the arithmetic is
/// common/split_finish.cuh's). A region of C is the 64 rows of a tile that one consumer warpgroup
/// multiplies: the warpgroup that stores the last slice of a region to arrive adds every slice of
/// it into C, slice 0 first, so no block waits for another.
#pragma once

#include "common/split_finish.cuh"
#include "tiles.h"
#include "work_units.h"

namespace lab11 {

/// Called by all 128 threads of consumer warpgroup `consumer` (0 .. kConsumers - 1) of the
/// warp-specialized kernel on kRows x kWidth tiles once they stored their 64 rows of unit `unit`
/// (from row row0, column col0 of C) into units.output(args, unit), args being the kernel's own.
/// Nothing happens unless `best` split K, the launch finishes in place (units.finish) and the
/// unit's tile is one of the split ones (a whole tile of a tail split wrote C itself); then the
/// warpgroup counts its slice's arrival, and the last slice's warpgroup writes those rows of C.
/// Uses named barrier 1 + consumer (bar.sync of the warpgroup's 128 threads).
template <int kWidth, int kRows>
__device__ __forceinline__ void finish_unit(const cudalabs::Bf16GemmArgs& args,
                                            const WorkUnits& units, int unit, int row0, int col0,
                                            int consumer) {
  constexpr int kConsumers = SpecializedTile<kWidth, kRows>::kConsumers;
  // the whole group's: K whole, the summing kernel's, a tile past C, a whole tile of a tail split
  if (!units.split() || !units.finish.in_place() || row0 >= args.m || units.whole_in_split(unit))
    return;
  __shared__ int last_part[kConsumers];
  const int barrier = 1 + consumer;
  const auto warpgroup_sync = [barrier] { ptx::named_barrier_sync<128>(barrier); };
  cudalabs::finish_part(units.finish, args.c, args.ldc, units.tile(unit) * kConsumers + consumer,
                        units.slices, row0, min(64, args.m - row0), col0,
                        min(kWidth, args.n - col0), static_cast<int>(threadIdx.x % 128), 128,
                        &last_part[consumer], warpgroup_sync);
}

}  // namespace lab11
