// Lab 07 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining its kernels: the steps wide_loads_kernel<kVector> and warp_tiles_kernel<kVector>,
// wide_gemm_kernel<Tile, kVector, kSplit>, async_wide_gemm_kernel<Tile, kVector, kStages> and
// narrow_gemm_kernel<kCols, kSlicedK>). The steps run on lab 06's 2-D grid; the wide kernels on a
// 1-D grid of one block per tile of C (the kernel maps its tile number to a tile, see kGroupRows).
// kVector selects the 128-bit loads, which need A and B 16-byte aligned with lda and ldb multiples
// of 4; other arguments take the scalar instantiation of the same kernel. The kernels test C's
// alignment for their stores themselves. `best` runs the tile and the share-out of K that
// best_plan.h predicts fastest (whole, split-K or stream-K: split_k.cuh), on aligned copies of a
// misaligned A or B where the copy pays (repack_pays).
#pragma once

#include "best_plan.h"
#include "common/aligned_operands.cuh"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"
#include "split_k.cuh"
#include "tiles.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace lab07 {
namespace {

// 128-bit loads of A and B (the kernels test C's alignment themselves, once, for their stores).
bool vector_paths_allowed(const cudalabs::GemmArgs& args) {
  return cudalabs::rows_allow_16_byte_loads(args.a, args.lda) &&
         cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
}

template <class Tile>
cudalabs::KernelLaunch describe(const cudalabs::GemmShape& shape) {
  const long long blocks = static_cast<long long>(cudalabs::ceil_div(shape.m, Tile::BM)) *
                           cudalabs::ceil_div(shape.n, Tile::BN);
  return {reinterpret_cast<const void*>(&wide_gemm_kernel<Tile, true, KSplit::kWhole>),
          cudalabs::checked_grid(blocks, 1, 1, "lab07 wide GEMM"), dim3(Tile::kThreads), 0};
}

// The wide kernel's instantiation for kSplit, 128-bit loads or not, on `grid`.
template <class Tile, KSplit kSplit>
void launch_wide(const cudalabs::GemmArgs& args, dim3 grid, cudaStream_t stream) {
  if (vector_paths_allowed(args)) {
    wide_gemm_kernel<Tile, true, kSplit><<<grid, Tile::kThreads, 0, stream>>>(args);
  } else {
    wide_gemm_kernel<Tile, false, kSplit><<<grid, Tile::kThreads, 0, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("lab07 wide_gemm_kernel");
}

template <class Tile>
void launch(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab07 wide GEMM");
  launch_wide<Tile, KSplit::kWhole>(args, describe<Tile>(args.shape()).grid, stream);
}

// Split-K: one block per tile of C and slice of K (gridDim.z = slices, k_slice.cuh).
template <class Tile>
void launch_slices(const cudalabs::GemmArgs& args, int slices, cudaStream_t stream) {
  dim3 grid = describe<Tile>(args.shape()).grid;
  grid.z = static_cast<unsigned>(slices);
  launch_wide<Tile, KSplit::kSlices>(args, grid, stream);
}

// Stream-K: `blocks` blocks share out the K iterations of every tile (k_slice.cuh).
template <class Tile>
void launch_streamed(const cudalabs::GemmArgs& args, int blocks, cudaStream_t stream) {
  launch_wide<Tile, KSplit::kStream>(args, dim3(static_cast<unsigned>(blocks)), stream);
}

// Steps 1 and 2 (wide_loads_kernel, warp_tiles_kernel): lab 06's grid, one StepTile of C per block
// on a 2-D grid.
enum class Step { kWideLoads, kWarpTiles };

template <Step kStep, bool kVector>
constexpr auto step_kernel() {
  if constexpr (kStep == Step::kWideLoads) {
    return &wide_loads_kernel<kVector>;
  } else {
    return &warp_tiles_kernel<kVector>;
  }
}

template <Step kStep>
cudalabs::KernelLaunch describe_step(const cudalabs::GemmShape& shape) {
  return {reinterpret_cast<const void*>(step_kernel<kStep, true>()),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.n, StepTile::BN),
                                 cudalabs::ceil_div(shape.m, StepTile::BM), 1, "lab07 step"),
          dim3(StepTile::kThreads), 0};
}

template <Step kStep>
void launch_step(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  constexpr const char* kName =
      kStep == Step::kWideLoads ? "lab07 wide_loads_kernel" : "lab07 warp_tiles_kernel";
  cudalabs::validate_gemm_args(args, kName);
  const cudalabs::KernelLaunch config = describe_step<kStep>(args.shape());
  if (vector_paths_allowed(args)) {
    step_kernel<kStep, true>()<<<config.grid, config.block, 0, stream>>>(args);
  } else {
    step_kernel<kStep, false>()<<<config.grid, config.block, 0, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH(kName);
}

// The cp.async kernel keeps its stages in dynamic shared memory; above 48 KiB a kernel must opt in,
// once per device.
template <class Tile, bool kVector, int kStages>
void allow_async_shared_memory() {
  constexpr int kBytes = async_shared_bytes<Tile, kStages>();
  if constexpr (kBytes > 48 * 1024) {
    static bool allowed[64] = {};
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (device < 64 && !allowed[device]) {
      CUDA_CHECK(cudaFuncSetAttribute(&async_wide_gemm_kernel<Tile, kVector, kStages>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
      allowed[device] = true;
    }
  }
}

template <class Tile, int kStages>
cudalabs::KernelLaunch describe_async(const cudalabs::GemmShape& shape) {
  allow_async_shared_memory<Tile, true, kStages>();  // so that occupancy queries see the real limit
  const long long blocks = static_cast<long long>(cudalabs::ceil_div(shape.m, Tile::BM)) *
                           cudalabs::ceil_div(shape.n, Tile::BN);
  return {reinterpret_cast<const void*>(&async_wide_gemm_kernel<Tile, true, kStages>),
          cudalabs::checked_grid(blocks, 1, 1, "lab07 async GEMM"), dim3(Tile::kThreads),
          static_cast<std::size_t>(async_shared_bytes<Tile, kStages>())};
}

template <class Tile, int kStages>
void launch_async(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab07 async GEMM");
  const cudalabs::KernelLaunch config = describe_async<Tile, kStages>(args.shape());
  if (vector_paths_allowed(args)) {
    async_wide_gemm_kernel<Tile, true, kStages>
        <<<config.grid, config.block, config.dynamic_shared_bytes, stream>>>(args);
  } else {
    allow_async_shared_memory<Tile, false, kStages>();
    async_wide_gemm_kernel<Tile, false, kStages>
        <<<config.grid, config.block, config.dynamic_shared_bytes, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("lab07 async_wide_gemm_kernel");
}

// The narrow kernel: one block per kNarrowWarps * kNarrowRows rows of C and column chunk, the chunk
// 4, 8 or kNarrowMaxCols columns wide (the narrowest that covers N, so a C of 3 columns computes
// 4).
template <int kCols>
cudalabs::KernelLaunch describe_narrow_chunk(const cudalabs::GemmShape& shape) {
  const long long blocks =
      static_cast<long long>(cudalabs::ceil_div(shape.m, kNarrowWarps * kNarrowRows)) *
      cudalabs::ceil_div(shape.n, kCols);
  return {reinterpret_cast<const void*>(&narrow_gemm_kernel<kCols, false>),
          cudalabs::checked_grid(blocks, 1, 1, "lab07 narrow GEMM"), dim3(kNarrowThreads), 0};
}

// Calls visit with narrow_chunk(n) (tiles.h) as a compile-time constant.
template <class Visit>
auto with_narrow_chunk(int n, Visit visit) {
  switch (narrow_chunk(n)) {
    case 4:
      return visit(std::integral_constant<int, 4>{});
    case 8:
      return visit(std::integral_constant<int, 8>{});
    default:
      return visit(std::integral_constant<int, kNarrowMaxCols>{});
  }
}

cudalabs::KernelLaunch describe_narrow(const cudalabs::GemmShape& shape) {
  return with_narrow_chunk(shape.n,
                           [&](auto cols) { return describe_narrow_chunk<cols()>(shape); });
}

void launch_narrow_slices(const cudalabs::GemmArgs& args, int slices, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab07 narrow GEMM");
  with_narrow_chunk(args.n, [&](auto cols) {
    cudalabs::KernelLaunch config = describe_narrow_chunk<cols()>(args.shape());
    config.grid.z = static_cast<unsigned>(slices);
    if (slices == 1) {
      narrow_gemm_kernel<cols(), false><<<config.grid, config.block, 0, stream>>>(args);
    } else {
      narrow_gemm_kernel<cols(), true><<<config.grid, config.block, 0, stream>>>(args);
    }
  });
  CUDA_CHECK_LAUNCH("lab07 narrow_gemm_kernel");
}

void launch_narrow(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  launch_narrow_slices(args, 1, stream);
}

int multiprocessors() {
  static const int count = [] {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
  }();
  return count;
}

// The `best` plan for a shape (best_plan.h): which tile, and whether to split K.
BestPlan plan_for(const cudalabs::GemmShape& shape) {
  return plan_best(shape, multiprocessors());
}

cudalabs::KernelLaunch describe_best(const cudalabs::GemmShape& shape);
void launch_best(const cudalabs::GemmArgs& args, cudaStream_t stream);

constexpr cudalabs::GemmVariant kVariants[] = {
    {"step1_wide_loads", "step 1: lab 06's 128x128x8 kernel with 128-bit global loads",
     &launch_step<Step::kWideLoads>, &describe_step<Step::kWideLoads>},
    {"step2_warp_tiles", "step 2: step 1 with warp tiles and 128-bit shared loads",
     &launch_step<Step::kWarpTiles>, &describe_step<Step::kWarpTiles>},
    {"wide_64x64", "64x64x16, 4 warps, 4x8 per thread", &launch<Tile64x64>, &describe<Tile64x64>},
    {"wide_128x64", "128x64x8, 4 warps, 8x8 per thread", &launch<Tile128x64>,
     &describe<Tile128x64>},
    {"wide_128x64x16", "128x64x16, 4 warps, 8x8 per thread: for C one tile wide",
     &launch<Tile128x64x16>, &describe<Tile128x64x16>},
    {"wide_128x128", "128x128x8, 8 warps, 8x8 per thread", &launch<Tile128x128>,
     &describe<Tile128x128>},
    {"wide_128x256", "128x256x8, 8 warps, 8x16 per thread", &launch<Tile128x256>,
     &describe<Tile128x256>},
    {"wide_256x128", "256x128x8, 8 warps, 16x8 per thread", &launch<Tile256x128>,
     &describe<Tile256x128>},
    {"async_128x256", "128x256x8 fed by cp.async (3 stages) instead of registers",
     &launch_async<Tile128x256, 3>, &describe_async<Tile128x256, 3>},
    {"narrow_columns", "for C a few columns wide: lanes split K, each warp streams 4 rows of A",
     &launch_narrow, &describe_narrow},
    {"best", "the kernel above that suits the shape", &launch_best, &describe_best},
};

// The variant that runs a plan's kernel: every candidate of best_plan.cpp is named after one.
const cudalabs::GemmVariant& variant_of(const BestPlan& plan) {
  for (const cudalabs::GemmVariant& variant : kVariants) {
    if (std::string_view(variant.name) == plan.candidate->name) return variant;
  }
  throw std::logic_error(std::string("lab07 best: no variant named ") + plan.candidate->name);
}

// What the plan launches first: the whole GEMM, or the first slice of K.
cudalabs::KernelLaunch describe_best(const cudalabs::GemmShape& shape) {
  const BestPlan plan = plan_for(shape);
  cudalabs::GemmShape first = shape;
  first.k = plan.slice_k;
  return variant_of(plan).describe(first);
}

// Calls visit(std::type_identity<Tile>{}) with the TileShape of a block tile of best_plan.h.
template <class Visit>
void with_block_tile(BestTile tile, Visit visit) {
  switch (tile) {
    case BestTile::k64x64:
      return visit(std::type_identity<Tile64x64>{});
    case BestTile::k128x64:
      return visit(std::type_identity<Tile128x64>{});
    case BestTile::k128x64x16:
      return visit(std::type_identity<Tile128x64x16>{});
    case BestTile::k128x128:
      return visit(std::type_identity<Tile128x128>{});
    case BestTile::k256x128:
      return visit(std::type_identity<Tile256x128>{});
    case BestTile::k128x256:
      return visit(std::type_identity<Tile128x256>{});
    case BestTile::kNarrow:
      break;
  }
  throw std::logic_error("lab07 best: not a block tile");
}

void run_plan(const BestPlan& plan, const cudalabs::GemmArgs& args, cudaStream_t stream) {
  if (plan.splits == 1 && !plan.stream_k()) {
    variant_of(plan).launch(args, stream);
  } else if (plan.candidate->tile == BestTile::kNarrow) {
    launch_split_k(args, plan.splits, &launch_narrow_slices, stream);
  } else {
    with_block_tile(plan.candidate->tile, [&](auto tile) {
      using Tile = typename decltype(tile)::type;
      if (plan.stream_k()) {
        launch_stream_k<Tile>(args, plan.stream_blocks, &launch_streamed<Tile>, stream);
      } else {
        launch_split_k(args, plan.splits, &launch_slices<Tile>, stream);
      }
    });
  }
}

// A misaligned A or B would put every tile on the scalar path; where the model says a copy costs
// less than that, the plan runs on copies that allow 128-bit loads (common/aligned_operands.cuh).
void launch_best(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab07 best");
  const BestPlan plan = plan_for(args.shape());
  const bool pack_a = !cudalabs::rows_allow_16_byte_loads(args.a, args.lda);
  const bool pack_b = !cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
  if (repack_pays(plan, args.shape(), pack_a, pack_b, multiprocessors())) {
    const cudalabs::AlignedOperands<float> aligned(args, pack_a, pack_b, stream, "lab07 repack");
    run_plan(plan, aligned.args(), stream);
    return;
  }
  run_plan(plan, args, stream);
}

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

void best_gemm(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  launch_best(args, stream);
}

void launch_plan(const BestPlan& plan, const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab07 plan");
  const bool streamable = plan.candidate != nullptr && plan.stream_k() &&
                          plan.candidate->tile != BestTile::kNarrow && plan.splits == 1 &&
                          plan.stream_blocks <= stream_k_iterations(*plan.candidate, args.shape());
  if (plan.candidate == nullptr || plan.splits < 1 || plan.splits > kMaxSplits ||
      (plan.stream_k() && !streamable) || (plan.splits == 1 && plan.slice_k != args.k) ||
      (plan.splits > 1 && (plan.slice_k != k_slice_length(args.k, plan.splits) ||
                           cudalabs::ceil_div(args.k, plan.slice_k) != plan.splits)))
    throw std::invalid_argument("lab07 plan: not a plan for K = " + std::to_string(args.k) + ": " +
                                (plan.candidate ? plan.describe() : std::string("no kernel")));
  run_plan(plan, args, stream);
}

}  // namespace lab07
