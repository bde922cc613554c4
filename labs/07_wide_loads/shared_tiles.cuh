// Lab 07, given: where the tiles of the core steps sit in shared memory, the same layout as lab
// 06's (A transposed, each row padded by kPadA floats so that the transposing stores hit 32 banks;
// B as it is). Include it from your kernels.cu; nothing here is a TODO.
//  - Steps 1 to 3 (StepTile): two buffers of each tile, declared in the kernel as
//    `__shared__ __align__(16) StepATile a_tile[2];` and `__shared__ __align__(16) StepBTile
//    b_tile[2];`, then a_tile[buffer][k][m] and b_tile[buffer][k][n].
//  - Step 4: kStages stages in dynamic shared memory (async_shared_bytes bytes, tiles.h), tile t in
//    stage t % kStages, found by
//      const auto stages = AsyncStages<Tile, kStages>::in_dynamic_shared_memory();
//    then stages.a(t)[k][m] and stages.b(t)[k][n].
#pragma once

#include "lab.h"
#include "tiles.h"

#include <cstddef>

namespace lab07 {

static_assert(StepTile::BM * StepTile::BK / 4 == StepTile::kThreads &&
                  StepTile::BK * StepTile::BN / 4 == StepTile::kThreads,
              "steps 1 to 3 stage one float4 of A and one of B per thread per tile");
static_assert(StepTile::kThreads == (StepTile::BM / 8) * (StepTile::BN / 8),
              "step 1 keeps lab 06's 8 x 8 patch per thread: 16 x 16 threads");

/// One shared buffer of the A tile of steps 1 to 3, transposed: a_tile[k][m], rows padded by kPadA.
using StepATile = float[StepTile::BK][StepTile::BM + kPadA];
/// One shared buffer of the B tile of steps 1 to 3: b_tile[k][n].
using StepBTile = float[StepTile::BK][StepTile::BN];

/// Step 4's stages in dynamic shared memory (`extern __shared__`): kStages of them, tile t in stage
/// t % kStages, each its A tile transposed (a(t)[k][m], rows padded by kPadA) followed by its B
/// tile (b(t)[k][n]).
template <class Tile, int kStages>
struct AsyncStages {
  /// One stage: the A tile, transposed, then the B tile.
  struct Stage {
    float a[Tile::BK][Tile::BM + kPadA];  ///< A's tile transposed: a[k][m], rows padded by kPadA
    float b[Tile::BK][Tile::BN];          ///< B's tile as it lies: b[k][n]
  };
  static_assert(kStages * sizeof(Stage) ==
                    static_cast<std::size_t>(async_shared_bytes<Tile, kStages>()),
                "the launch gives the kernel exactly its stages");

  Stage* stages;  ///< the kernel's dynamic shared memory

  /// The stages in this kernel's dynamic shared memory (the launch gives it async_shared_bytes).
  static __device__ __forceinline__ AsyncStages in_dynamic_shared_memory() {
    extern __shared__ float4 dynamic_shared_memory[];
    return {reinterpret_cast<Stage*>(dynamic_shared_memory)};
  }

  /// Tile t's A tile, transposed: a(t)[k][m].
  __device__ __forceinline__ auto& a(int t) const { return stages[t % kStages].a; }
  /// Tile t's B tile: b(t)[k][n].
  __device__ __forceinline__ auto& b(int t) const { return stages[t % kStages].b; }
};

}  // namespace lab07
