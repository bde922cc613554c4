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
/// Block rows per group of the block swizzle: consecutive blocks walk down a group of kGroupRows
/// block rows before moving right, so that the A and B panels they share are still in L2.
inline constexpr int kGroupRows = 8;

/// The lab's variants, in the order a student writes them (block tile, warps, outputs per thread):
/// - `step1_wide_loads`: lab 06's 128 x 128 x 8 kernel (8 x 8 per thread) with 128-bit global loads
/// - `step2_warp_tiles`: step 1 with warp tiles, each fragment read by conflict-free 128-bit shared
/// loads
/// The `wide_*` kernels add the shared->register prefetch and the polish of the final kernel:
/// - `wide_64x64`: 64 x 64 x 16, 4 warps, 4 x 8 per thread: for small problems
/// - `wide_128x64`: 128 x 64 x 8, 4 warps, 8 x 8 per thread: for narrow problems
/// - `wide_128x64x16`: the same, 16 deep: for a C one tile wide, whose A streams from DRAM
/// - `wide_128x128`: 128 x 128 x 8, 8 warps, 8 x 8 per thread
/// - `wide_128x256`: 128 x 256 x 8, 8 warps, 8 x 16 per thread
/// - `wide_256x128`: 256 x 128 x 8, 8 warps, 16 x 8 per thread
/// - `async_128x256`: the 128 x 256 tile fed by cp.async, 3 stages deep, instead of register
/// staging
/// - `narrow_columns`: for a C a few columns wide (N <= 16): each warp streams 4 rows of A, its
///   lanes splitting K (a matrix-vector product in disguise, bound by reading A)
/// - `best`: runs one of the above, K whole, split or shared out by stream-K, as best_plan.h
///   predicts fastest for the shape (the suite's final FP32 GEMM)
/// Every variant loads A and B 128 bits at a time when both are 16-byte aligned with lda and ldb
/// multiples of 4, and stores C so when C is aligned with ldc a multiple of 4; scalar otherwise.
/// Any shape is right.
std::span<const cudalabs::GemmVariant> variants();

/// The `best` variant's launcher, for other labs (lab 09 lowers its convolutions onto it).
void best_gemm(const cudalabs::GemmArgs& args, cudaStream_t stream);

/// Runs one plan of candidate_plans (best_plan.h) for args, whichever `best` would choose: for
/// lab07_plans, which times every plan against the model. Throws std::invalid_argument for a plan
/// that does not fit args (another K) or bad arguments.
void launch_plan(const BestPlan& plan, const cudalabs::GemmArgs& args, cudaStream_t stream);

}  // namespace lab07

/// Which build of lab 07's kernels this program linked: "student" or "solution". CMake generates
/// it for each kernel library, so that a later lab's driver can say what it runs on
/// (common/earlier_labs.h).
extern "C" const char* cudalabs_lab07_kernels_build();
