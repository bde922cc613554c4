/// @file gemm_variant.h
/// @brief The variant registry: a lab's kernels as a list of named entries.
///
/// A lab exposes `std::span<const GemmVariant> variants()`. The driver, the grading tests, the
/// benchmarks and the occupancy checks iterate over that list, so adding a variant is one line
/// there.
#pragma once

#include "common/gemm_types.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs {

/// How a variant launches for a given shape: the kernel entry point and its configuration. Used to
/// query registers and occupancy (cudaFuncGetAttributes,
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor) without running the kernel.
struct KernelLaunch {
  const void* kernel = nullptr;  ///< the __global__ function, as passed to cudaFuncGetAttributes
  dim3 grid;                     ///< blocks in the grid
  dim3 block;                    ///< threads per block
  std::size_t dynamic_shared_bytes = 0;  ///< dynamic shared memory per block

  /// Threads per block (block.x * block.y * block.z).
  int threads_per_block() const { return static_cast<int>(block.x * block.y * block.z); }
};

/// Enqueues one GEMM on `stream`. Validates the arguments first and throws std::invalid_argument
/// for bad ones; launch failures throw CudaError.
template <class Input>
using GemmLauncherOf = void (*)(const GemmArgsOf<Input>& args, cudaStream_t stream);
/// A launcher of labs 01-10 (FP32 A and B).
using GemmLauncher = GemmLauncherOf<float>;

/// Describes the launch that GemmLauncher makes for a shape.
using GemmLaunchDescriber = KernelLaunch (*)(const GemmShape& shape);

/// One entry of a lab's variant list. `Input` is the element type of A and B (float; BF16 or FP16
/// in lab 11).
template <class Input>
struct GemmVariantOf {
  const char* name;              ///< short name used in tables, flags and benchmark names
  const char* summary;           ///< one line: what this variant changes
  GemmLauncherOf<Input> launch;  ///< enqueues the GEMM
  GemmLaunchDescriber describe;  ///< the kernel and configuration the launch uses
  /// Why the variant cannot run on the current GPU (e.g. "needs compute capability 9.0 ..."), empty
  /// when it can; null for a variant that runs on every GPU the suite supports. The driver and the
  /// tests report such a variant as skipped with this reason.
  std::string (*unavailable)() = nullptr;
};

/// A variant of labs 01-10.
using GemmVariant = GemmVariantOf<float>;

/// Returns the variants of `all` named in `names`, in the order given; every variant when `names`
/// is empty. Throws std::invalid_argument naming an unknown variant and listing the known ones.
std::vector<const GemmVariant*> select_variants(std::span<const GemmVariant> all,
                                                const std::vector<std::string>& names);
/// The same for BF16 variants (lab 11).
std::vector<const GemmVariantOf<__nv_bfloat16>*> select_variants(
    std::span<const GemmVariantOf<__nv_bfloat16>> all, const std::vector<std::string>& names);
/// The same for FP16 variants (lab 11's rungs for compute capability 7.5).
std::vector<const GemmVariantOf<__half>*> select_variants(
    std::span<const GemmVariantOf<__half>> all, const std::vector<std::string>& names);

/// The names of `all`, comma-separated (for messages and --help).
std::string variant_names(std::span<const GemmVariant> all);
/// The same for BF16 variants (lab 11).
std::string variant_names(std::span<const GemmVariantOf<__nv_bfloat16>> all);
/// The same for FP16 variants (lab 11).
std::string variant_names(std::span<const GemmVariantOf<__half>> all);

/// Why `variant` cannot run here (its `unavailable`), or empty.
template <class Input>
std::string unavailable_reason(const GemmVariantOf<Input>& variant) {
  return variant.unavailable == nullptr ? std::string() : variant.unavailable();
}

}  // namespace cudalabs
