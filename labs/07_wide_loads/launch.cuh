// Lab 07 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining its kernels). Given code: nothing here is a TODO.
//  - The core steps: wide_loads_kernel<kVector>, warp_tiles_kernel<kVector> and
//    prefetch_kernel<kVector> run on lab 06's 2-D grid of StepTile blocks;
//    async_wide_gemm_kernel<AsyncTile, kVector, kAsyncStages> on a 1-D grid of one block per tile.
//  - The optional challenge, the kernels `best` runs: wide_gemm_kernel<Shape, kVector, kSplit> for
//    each block tile of BestTiles (tiles.h) and narrow_gemm_kernel<kCols, kSlicedK>, on 1-D grids
//    (the kernel maps its tile number to a tile, see kGroupRows).
//  - `best`: the kernel of BestTiles, or the given few-rows (few_rows.cuh) or short-K (short_k.cuh)
//    kernel, and the
//    share-out of K (whole, split-K or stream-K: split_k.cuh) that best_plan.h predicts fastest, on
//    aligned copies of a misaligned A or B where the copy pays (repack_pays). Every plan is
//    launched from its description (planned_launch), so that describe_best and describe_plan name
//    the kernel and grid the plan runs.
// kVector selects the 128-bit loads, which need A and B 16-byte aligned with lda and ldb multiples
// of 4; other arguments take the scalar instantiation of the same kernel. The kernels test C's
// alignment for their stores themselves.
#pragma once

#include "best_plan.h"
#include "common/aligned_operands.cuh"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "common/remembered_plan.h"
#include "few_rows.cuh"
#include "lab.h"
#include "short_k.cuh"
#include "split_k.cuh"
#include "stream_k.h"
#include "tiles.h"

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace lab07 {
namespace {

// 128-bit loads of A and B (the kernels test C's alignment themselves, once, for their stores).
bool vector_paths_allowed(const cudalabs::GemmArgs& args) {
  return cudalabs::rows_allow_16_byte_loads(args.a, args.lda) &&
         cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
}

// ---- The core steps ----

// Steps 1 to 3: lab 06's grid, one StepTile of C per block on a 2-D grid.
enum class Step { kWideLoads, kWarpTiles, kPrefetch };

template <Step kStep, bool kVector>
constexpr auto step_kernel() {
  if constexpr (kStep == Step::kWideLoads) {
    return &wide_loads_kernel<kVector>;
  } else if constexpr (kStep == Step::kWarpTiles) {
    return &warp_tiles_kernel<kVector>;
  } else {
    return &prefetch_kernel<kVector>;
  }
}

template <Step kStep>
constexpr const char* step_name() {
  return kStep == Step::kWideLoads   ? "lab07 wide_loads_kernel"
         : kStep == Step::kWarpTiles ? "lab07 warp_tiles_kernel"
                                     : "lab07 prefetch_kernel";
}

template <Step kStep>
cudalabs::KernelLaunch describe_step(const cudalabs::GemmShape& shape) {
  return {reinterpret_cast<const void*>(step_kernel<kStep, true>()),
          cudalabs::checked_grid(cudalabs::ceil_div(shape.n, StepTile::BN),
                                 cudalabs::ceil_div(shape.m, StepTile::BM), 1, step_name<kStep>()),
          dim3(StepTile::kThreads), 0};
}

template <Step kStep>
void launch_step(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, step_name<kStep>());
  const cudalabs::KernelLaunch config = describe_step<kStep>(args.shape());
  if (vector_paths_allowed(args)) {
    step_kernel<kStep, true>()<<<config.grid, config.block, 0, stream>>>(args);
  } else {
    step_kernel<kStep, false>()<<<config.grid, config.block, 0, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH(step_name<kStep>());
}

// Step 4: the cp.async kernel keeps its stages in dynamic shared memory; above 48 KiB a kernel must
// opt in, which allow_dynamic_shared_memory does (common/launch_utils.h), for the description as
// for the launch, so that occupancy queries see the real limit.
cudalabs::KernelLaunch describe_async(const cudalabs::GemmShape& shape) {
  constexpr auto kernel = &async_wide_gemm_kernel<AsyncTile, true, kAsyncStages>;
  constexpr int kBytes = async_shared_bytes<AsyncTile, kAsyncStages>();
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(kernel), kBytes);
  const long long blocks = static_cast<long long>(cudalabs::ceil_div(shape.m, AsyncTile::BM)) *
                           cudalabs::ceil_div(shape.n, AsyncTile::BN);
  return {reinterpret_cast<const void*>(kernel),
          cudalabs::checked_grid(blocks, 1, 1, "lab07 async GEMM"), dim3(AsyncTile::kThreads),
          static_cast<std::size_t>(kBytes)};
}

void launch_async(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab07 async GEMM");
  const cudalabs::KernelLaunch config = describe_async(args.shape());
  if (vector_paths_allowed(args)) {
    async_wide_gemm_kernel<AsyncTile, true, kAsyncStages>
        <<<config.grid, config.block, config.dynamic_shared_bytes, stream>>>(args);
  } else {
    cudalabs::allow_dynamic_shared_memory(
        reinterpret_cast<const void*>(&async_wide_gemm_kernel<AsyncTile, false, kAsyncStages>),
        config.dynamic_shared_bytes);
    async_wide_gemm_kernel<AsyncTile, false, kAsyncStages>
        <<<config.grid, config.block, config.dynamic_shared_bytes, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("lab07 async_wide_gemm_kernel");
}

// ---- The kernels of BestTiles, and every plan of `best`, from one description ----

// What a plan launches: the kernel (each writes its part of C and, split, finishes in place:
// k_slice.cuh's TilePart), its grid and its block. The launch and the descriptions are both made
// from it.
struct PlannedLaunch {
  void (*kernel)(cudalabs::GemmArgs, cudalabs::SplitFinish) = nullptr;
  dim3 grid, block;
  std::size_t shared_bytes = 0;  // dynamic shared memory
  // Regions of C whose parts the finish counts: one per block of a slice (tile, or the few-rows
  // kernel's rows and columns).
  long long regions() const { return static_cast<long long>(grid.x) * grid.y; }
};

// How a launch shares out K (stream_k.h): the whole of it, gridDim.z slices, or stream-K's pieces.
KSplit split_of(const BestPlan& plan) {
  return plan.stream_k() ? KSplit::kStream : plan.splits > 1 ? KSplit::kSlices : KSplit::kWhole;
}

template <class Shape, bool kVector>
auto wide_kernel(KSplit split) {
  switch (split) {
    case KSplit::kSlices:
      return &wide_gemm_kernel<Shape, kVector, KSplit::kSlices>;
    case KSplit::kStream:
      return &wide_gemm_kernel<Shape, kVector, KSplit::kStream>;
    case KSplit::kWhole:
      break;
  }
  return &wide_gemm_kernel<Shape, kVector, KSplit::kWhole>;
}

// Calls visit(std::integral_constant<int, narrow_chunk(n)>{}): the column chunk as a constant.
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

// Kernel of BestTiles on `shape`, K shared out as `plan` says (only splits and stream_blocks are
// read): a block tile's kernel on one block per tile of C (gridDim.z = slices under split-K; the
// plan's blocks under stream-K), or the narrow kernel on one block per kNarrowWarps * kNarrowRows
// rows and column chunk (4, 8 or kNarrowMaxCols columns: the narrowest that covers N).
template <class Kernel>
PlannedLaunch planned_launch_of(const BestPlan& plan, const cudalabs::GemmShape& shape,
                                bool vector) {
  PlannedLaunch launch;
  long long blocks = 0;
  if constexpr (Kernel::kNarrow) {
    blocks = static_cast<long long>(cudalabs::ceil_div(shape.m, Kernel::BM)) *
             cudalabs::ceil_div(shape.n, narrow_chunk(shape.n));
    launch.kernel = with_narrow_chunk(shape.n, [&](auto cols) {
      return plan.splits > 1 ? &narrow_gemm_kernel<cols(), true>
                             : &narrow_gemm_kernel<cols(), false>;
    });
    launch.block = dim3(kNarrowThreads);
  } else {
    using Shape = typename Kernel::Shape;
    blocks = static_cast<long long>(cudalabs::ceil_div(shape.m, Shape::BM)) *
             cudalabs::ceil_div(shape.n, Shape::BN);
    launch.kernel = vector ? wide_kernel<Shape, true>(split_of(plan))
                           : wide_kernel<Shape, false>(split_of(plan));
    launch.block = dim3(Shape::kThreads);
  }
  if (plan.stream_k()) blocks = plan.stream_blocks;
  launch.grid = cudalabs::checked_grid(blocks, 1, 1, Kernel::kName);
  if (plan.splits > 1) launch.grid.z = static_cast<unsigned>(plan.splits);
  return launch;
}

// The few-rows kernel (few_rows.cuh) on one block per kFewRowsCols columns and group of rows,
// gridDim.z slices of K under split-K, copying B 16 bytes at a time where `vector` (B's rows allow
// it) and 4 otherwise.
template <int kRows>
auto few_rows_kernel(bool sliced, bool vector)
    -> void (*)(cudalabs::GemmArgs, cudalabs::SplitFinish) {
  if (sliced) {
    return vector ? &few_rows_gemm_kernel<kRows, true, true>
                  : &few_rows_gemm_kernel<kRows, true, false>;
  }
  return vector ? &few_rows_gemm_kernel<kRows, false, true>
                : &few_rows_gemm_kernel<kRows, false, false>;
}

PlannedLaunch few_rows_launch(const BestPlan& plan, const cudalabs::GemmShape& shape, bool vector) {
  PlannedLaunch launch;
  const int group = few_rows_group(shape.m);
  launch.block = dim3(kFewRowsThreads);
  launch.grid =
      cudalabs::checked_grid(cudalabs::ceil_div(shape.n, kFewRowsCols),
                             cudalabs::ceil_div(shape.m, group), plan.splits, "lab07 few_rows");
  const bool sliced = plan.splits > 1;
  launch.kernel = group == 4   ? few_rows_kernel<4>(sliced, vector)
                  : group == 8 ? few_rows_kernel<8>(sliced, vector)
                               : few_rows_kernel<16>(sliced, vector);
  return launch;
}

// The short-K kernel (short_k.cuh) on one block per tile of C, K whole, copying B 16 bytes at a
// time where `vector` (B's rows allow it) and 4 otherwise, its two buffers in dynamic shared
// memory (past 48 KiB: allowed here, for the description as for the launch).
PlannedLaunch short_k_launch(const cudalabs::GemmShape& shape, bool vector) {
  PlannedLaunch launch;
  launch.kernel = vector ? &short_k_gemm_kernel<true> : &short_k_gemm_kernel<false>;
  launch.block = dim3(kShortKThreads);
  launch.grid =
      cudalabs::checked_grid(static_cast<long long>(cudalabs::ceil_div(shape.m, kShortKRows)) *
                                 cudalabs::ceil_div(shape.n, kShortKCols),
                             1, 1, "lab07 short_k");
  launch.shared_bytes = kShortKSharedBytes;
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(launch.kernel),
                                        kShortKSharedBytes);
  return launch;
}

PlannedLaunch planned_launch(const BestPlan& plan, const cudalabs::GemmShape& shape, bool vector) {
  if (plan.candidate->few_rows) return few_rows_launch(plan, shape, vector);
  if (plan.candidate->short_k) return short_k_launch(shape, vector);
  PlannedLaunch launch;
  BestTiles::visit(plan.candidate->index, [&](auto kernel) {
    launch = planned_launch_of<typename decltype(kernel)::type>(plan, shape, vector);
  });
  return launch;
}

cudalabs::KernelLaunch kernel_launch(const PlannedLaunch& launch) {
  return {reinterpret_cast<const void*>(launch.kernel), launch.grid, launch.block,
          launch.shared_bytes};
}

void run_planned(const PlannedLaunch& launch, const cudalabs::GemmArgs& args,
                 const cudalabs::SplitFinish& finish, cudaStream_t stream) {
  launch.kernel<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(args, finish);
  CUDA_CHECK_LAUNCH("lab07 best's kernel");
}

// The plan that runs kernel number `index` of BestTiles with K whole.
BestPlan whole_k_plan(int index, const cudalabs::GemmShape& shape) {
  BestPlan plan;
  plan.candidate = &best_candidates()[static_cast<std::size_t>(index)];
  plan.slice_k = shape.k;
  return plan;
}

// The `wide_*` and `narrow_columns` variants: kernel `Kernel` of BestTiles, K whole.
template <class Kernel>
BestPlan whole_k_plan(const cudalabs::GemmShape& shape) {
  static_assert(BestTiles::index_of<Kernel>() >= 0, "a kernel of BestTiles");
  return whole_k_plan(BestTiles::index_of<Kernel>(), shape);
}

template <class Kernel>
cudalabs::KernelLaunch describe_tile(const cudalabs::GemmShape& shape) {
  return kernel_launch(planned_launch_of<Kernel>(whole_k_plan<Kernel>(shape), shape, true));
}

template <class Kernel>
void launch_tile(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, Kernel::kName);
  run_planned(planned_launch_of<Kernel>(whole_k_plan<Kernel>(args.shape()), args.shape(),
                                        vector_paths_allowed(args)),
              args, cudalabs::SplitFinish{}, stream);
}

// Runs `plan` on args: its kernel once with K whole, or into a workspace whose slices (split-K) or
// pieces (stream-K) the launch sums into C itself, or, in a stream being captured, the summing
// kernel after it (split_k.cuh).
void run_plan(const BestPlan& plan, const cudalabs::GemmArgs& args, cudaStream_t stream) {
  // The few-rows and short-K kernels copy A 4 bytes at a time at any alignment: only B's rows
  // decide.
  const bool vector = plan.candidate->few_rows || plan.candidate->short_k
                          ? cudalabs::rows_allow_16_byte_loads(args.b, args.ldb)
                          : vector_paths_allowed(args);
  const PlannedLaunch planned = planned_launch(plan, args.shape(), vector);
  const auto launch = [&](const cudalabs::GemmArgs& gemm, const cudalabs::SplitFinish& finish,
                          cudaStream_t s) { run_planned(planned, gemm, finish, s); };
  if (plan.stream_k()) {
    launch_stream_k(args, *plan.candidate, plan.stream_blocks, launch, stream);
  } else if (plan.splits > 1) {
    launch_split_k(args, plan.splits, planned.regions(), launch, stream);
  } else {
    launch(args, cudalabs::SplitFinish{}, stream);
  }
}

// Throws std::invalid_argument for a plan that is not one of candidate_plans for a GEMM of K `k`.
void check_plan(const BestPlan& plan, int k, const cudalabs::GemmShape& shape) {
  const bool streamable = plan.candidate != nullptr && plan.stream_k() && !plan.candidate->narrow &&
                          !plan.candidate->few_rows && !plan.candidate->short_k &&
                          plan.splits == 1 &&
                          plan.stream_blocks <= stream_k_iterations(*plan.candidate, shape);
  if (plan.candidate == nullptr || plan.splits < 1 || plan.splits > kMaxSplits ||
      (plan.stream_k() && !streamable) || (plan.splits == 1 && plan.slice_k != k) ||
      (plan.splits > 1 && (plan.slice_k != k_slice_length(k, plan.splits) ||
                           cudalabs::ceil_div(k, plan.slice_k) != plan.splits)))
    throw std::invalid_argument("lab07 plan: not a plan for K = " + std::to_string(k) + ": " +
                                (plan.candidate ? plan.describe() : std::string("no kernel")));
  if (plan.candidate->few_rows && shape.m > kFewRowsMaxRows)
    throw std::invalid_argument(
        "lab07 plan: the few-rows kernel takes M <= " + std::to_string(kFewRowsMaxRows) +
        ", not M = " + std::to_string(shape.m));
  if (plan.candidate->short_k && (plan.splits > 1 || shape.k > kShortKMaxK))
    throw std::invalid_argument(
        "lab07 plan: the short-K kernel takes K <= " + std::to_string(kShortKMaxK) +
        ", whole, not " + plan.describe() + " for K = " + std::to_string(shape.k));
}

// plan_best for the shape with 128-bit loads or on the scalar path, each remembered
// (common/remembered_plan.h: one memory per planner, so the two do not evict each other).
const BestPlan& planned_best(const cudalabs::GemmShape& shape, bool vector_loads) {
  if (vector_loads) {
    return cudalabs::remembered_plan<BestPlan>(
        shape, [](const cudalabs::GemmShape& s, int sms) { return plan_best(s, sms, true); });
  }
  return cudalabs::remembered_plan<BestPlan>(
      shape, [](const cudalabs::GemmShape& s, int sms) { return plan_best(s, sms, false); });
}

cudalabs::KernelLaunch describe_best(const cudalabs::GemmShape& shape) {
  return describe_plan(planned_best(shape, true), shape);
}

// A misaligned A or B puts every tile on the scalar path, where the model plans with each tile's
// scalar rate; where a copy and the best plan with 128-bit loads take less, the vector plan runs on
// copies that allow them (common/aligned_operands.cuh).
void launch_best(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab07 best");
  const bool pack_a = !cudalabs::rows_allow_16_byte_loads(args.a, args.lda);
  const bool pack_b = !cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
  if (!pack_a && !pack_b) {
    run_plan(planned_best(args.shape(), true), args, stream);
    return;
  }
  const BestPlan scalar_plan = planned_best(args.shape(), false);
  const BestPlan& vector_plan = planned_best(args.shape(), true);
  if (repack_pays(scalar_plan, vector_plan, args.shape(), pack_a, pack_b,
                  cudalabs::multiprocessor_count())) {
    const cudalabs::AlignedOperands<float> aligned(args, pack_a, pack_b, stream, "lab07 repack");
    run_plan(vector_plan, aligned.args(), stream);
    return;
  }
  run_plan(scalar_plan, args, stream);
}

// ---- The variant list: the core steps, then BestTiles' kernels (the challenge), then best ----

template <class... Kernels>
constexpr std::array<cudalabs::GemmVariant, sizeof...(Kernels)> kernel_variants(
    KernelList<Kernels...>) {
  return {cudalabs::GemmVariant{Kernels::kName, Kernels::kSummary, &launch_tile<Kernels>,
                                &describe_tile<Kernels>}...};
}

constexpr cudalabs::GemmVariant kSteps[] = {
    {"step1_wide_loads", "step 1: lab 06's 128x128x8 kernel with 128-bit global loads",
     &launch_step<Step::kWideLoads>, &describe_step<Step::kWideLoads>},
    {"step2_warp_tiles", "step 2: step 1 with warp tiles and 128-bit shared loads",
     &launch_step<Step::kWarpTiles>, &describe_step<Step::kWarpTiles>},
    {"step3_prefetch", "step 3: step 2 with the shared->register prefetch (two fragment slots)",
     &launch_step<Step::kPrefetch>, &describe_step<Step::kPrefetch>},
    {"async_128x256", "step 4: 128x256x8 fed by cp.async (3 stages) instead of registers",
     &launch_async, &describe_async},
};
constexpr std::array<cudalabs::GemmVariant, BestTiles::kSize> kTileVariants =
    kernel_variants(BestTiles{});
constexpr cudalabs::GemmVariant kBest = {"best", "the kernel above that suits the shape",
                                         &launch_best, &describe_best};

constexpr std::size_t kVariantCount = std::size(kSteps) + kTileVariants.size() + 1;

constexpr std::array<cudalabs::GemmVariant, kVariantCount> all_variants() {
  std::array<cudalabs::GemmVariant, kVariantCount> all{};
  std::size_t i = 0;
  for (const cudalabs::GemmVariant& variant : kSteps) all[i++] = variant;
  for (const cudalabs::GemmVariant& variant : kTileVariants) all[i++] = variant;
  all[i] = kBest;
  return all;
}
constexpr std::array<cudalabs::GemmVariant, kVariantCount> kVariants = all_variants();

}  // namespace

std::span<const cudalabs::GemmVariant> variants() {
  return kVariants;
}

void best_gemm(const cudalabs::GemmArgs& args, cudaStream_t stream) {
  launch_best(args, stream);
}

void launch_plan(const BestPlan& plan, const cudalabs::GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab07 plan");
  check_plan(plan, args.k, args.shape());
  run_plan(plan, args, stream);
}

cudalabs::KernelLaunch describe_plan(const BestPlan& plan, const cudalabs::GemmShape& shape) {
  cudalabs::validate_gemm_shape(shape, "lab07 plan");
  check_plan(plan, shape.k, shape);
  return kernel_launch(planned_launch(plan, shape, true));
}

}  // namespace lab07
