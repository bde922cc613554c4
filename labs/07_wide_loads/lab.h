/// @file labs/07_wide_loads/lab.h
/// @brief Lab 07: 128-bit loads, shared->register prefetch and warp tiling: the suite's final
/// SGEMM.
#pragma once

#include "best_plan.h"
#include "common/gemm_variant.h"

#include <span>

/// Lab 07: wide loads and warp tiling.
namespace lab07 {

/// Floats of padding at the end of each row of the transposed A tile, so that the four transposing
/// stores of a warp hit 32 different banks.
inline constexpr int kPadA = 4;
/// Block rows per group of the block swizzle (the challenge's kernels): consecutive blocks walk
/// down a group of kGroupRows block rows before moving right, so that the A and B panels they
/// share are still in L2.
inline constexpr int kGroupRows = 8;

/// The lab's variants. The core steps, in the order a student writes them (kernels.cu):
/// - `step1_wide_loads`: lab 06's 128 x 128 x 8 kernel (8 x 8 per thread) with 128-bit global loads
/// - `step2_warp_tiles`: step 1 with warp tiles, each fragment read by conflict-free 128-bit shared
///   loads
/// - `step3_prefetch`: step 2 with the shared->register prefetch: two register slots of fragments,
///   the next step's loaded while this step's FFMAs run
/// - `async_128x256` (step 4): a 128 x 256 tile fed by cp.async, kAsyncStages stages deep, instead
///   of register staging
/// Then the optional challenge, the kernels `best` runs (one per entry of BestTiles, tiles.h), and
/// `best` itself (given code, best_plan.h):
/// - `wide_256x128`, `wide_128x256`, `wide_128x128`, `wide_128x64`, `wide_128x64x16`,
///   `wide_64x64`, `wide_32x32`: step 3 polished for any tile shape (the tile loop written per
///   shared buffer, unchecked loads for every tile but the last, edge blocks clamped, a block
///   swizzle, 128-bit stores of C), in the share-outs of K that `best` asks for
/// - `narrow_columns`: for a C a few columns wide (N <= 16): each warp streams 4 rows of A, its
///   lanes splitting K, 128-bit loads of A and of B's rows staged in shared memory (a
///   matrix-vector product in disguise, bound by reading A)
/// - `best`: runs one of the kernels above, K whole, split or shared out by stream-K, as
///   best_plan.h predicts fastest for the shape (the suite's final FP32 GEMM)
/// Every variant loads A and B 128 bits at a time when both are 16-byte aligned with lda and ldb
/// multiples of 4, and scalar otherwise. Any shape is right.
std::span<const cudalabs::GemmVariant> variants();

/// The `best` variant's launcher, for other labs (lab 09 lowers its convolutions onto it).
void best_gemm(const cudalabs::GemmArgs& args, cudaStream_t stream);

/// Runs one plan of candidate_plans (best_plan.h) for args, whichever `best` would choose: for
/// lab07_plans, which times every plan against the model. Throws std::invalid_argument for a plan
/// that does not fit args (another K) or bad arguments.
void launch_plan(const BestPlan& plan, const cudalabs::GemmArgs& args, cudaStream_t stream);

/// The kernel, grid and block that launch_plan runs for `plan` on a problem of `shape` (the
/// 128-bit instantiation; with K split or streamed, the launch into the workspace, before the
/// summing kernel): what `best`'s description (its variant's describe) reports for its own plan.
/// Throws std::invalid_argument as launch_plan does.
cudalabs::KernelLaunch describe_plan(const BestPlan& plan, const cudalabs::GemmShape& shape);

}  // namespace lab07

/// Which build of lab 07's kernels this program linked: "student" or "solution". CMake generates
/// it for each kernel library, so that a later lab's driver can say what it runs on
/// (common/earlier_labs.h).
extern "C" const char* cudalabs_lab07_kernels_build();
