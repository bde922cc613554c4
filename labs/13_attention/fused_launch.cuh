// Lab 13's fused rungs' launch plumbing (given), included by launch.cuh and by any other file that
// launches a fused kernel (the reference solution's measured steps past the ladder): argument
// checks, what a rung needs of the GPU and of the build, the grid of query tiles, and FusedRung,
// the describe/launch/unavailable trio of a fused kernel for both head dimensions.
#pragma once

#include "common/argument_checks.h"
#include "common/build_report.h"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace lab13 {
namespace {

using cudalabs::ceil_div;
using cudalabs::KernelLaunch;

#ifdef CUDALABS_LAB13_SM90A
constexpr bool kBuiltForSm90a = true;
#else
constexpr bool kBuiltForSm90a = false;
#endif

void require_pointer(const void* pointer, const char* name, const std::string& who) {
  if (pointer == nullptr) throw std::invalid_argument(who + ": pointer " + name + " is null");
}

void require_aligned(const void* pointer, std::size_t bytes, const char* name,
                     const std::string& who) {
  if (reinterpret_cast<std::uintptr_t>(pointer) % bytes != 0) {
    throw std::invalid_argument(who + ": pointer " + name + " is not " + std::to_string(bytes) +
                                "-byte aligned");
  }
}

// The compute capability of the current device.
int current_arch() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return 10 * major + minor;
}

// Why a kernel needing compute capability `needs_arch` (90: Hopper's sm_90a) cannot run here, from
// the GPU and the code this build holds for it (common/build_report.h); empty when it can.
std::string missing_capability(int needs_arch, const void* kernel) {
  const int here = current_arch();
  if (needs_arch == 90) {
    if (here / 10 != 9)
      return "needs compute capability 9.0 (sm_90a code runs on Hopper only; this GPU is " +
             cudalabs::arch_text(here) + ")";
    if (!kBuiltForSm90a)
      return "this build has no sm_90a code (configure with 90 in CMAKE_CUDA_ARCHITECTURES)";
  }
  return cudalabs::missing_feature_reason(here, cudalabs::kernel_code(kernel), needs_arch);
}

void require_capability(int needs_arch, const void* kernel, const std::string& who) {
  const std::string missing = missing_capability(needs_arch, kernel);
  if (!missing.empty()) throw std::runtime_error(who + ": " + missing);
}

void validate_attention(const AttentionArgs& args, std::size_t workspace_needed,
                        const std::string& who) {
  const AttentionShape& s = args.shape;
  cudalabs::require_positive(who, "batch", s.batch);
  cudalabs::require_positive(who, "heads", s.heads);
  cudalabs::require_positive(who, "sequence", s.sequence);
  if (s.head_dim != 64 && s.head_dim != 128) {
    throw std::invalid_argument(who + ": head_dim = " + std::to_string(s.head_dim) +
                                " must be 64 or 128");
  }
  if (s.heads_total() > 65535) {
    throw std::invalid_argument(who + ": batch * heads = " + std::to_string(s.heads_total()) +
                                " must be <= 65535 (a grid dimension per head)");
  }
  if (!std::isfinite(args.scale) || args.scale <= 0.0f) {
    throw std::invalid_argument(who + ": scale = " + std::to_string(args.scale) +
                                " must be finite and > 0");
  }
  const std::pair<const void*, const char*> tensors[] = {
      {args.q, "q"}, {args.k, "k"}, {args.v, "v"}, {args.o, "o"}};
  for (const auto& [pointer, name] : tensors) {
    require_pointer(pointer, name, who);
    require_aligned(pointer, 16, name, who);  // the fused kernels copy 16-byte chunks
  }
  if (workspace_needed > 0 &&
      (args.workspace == nullptr || args.workspace_bytes < workspace_needed)) {
    throw std::invalid_argument(
        who + ": workspace of " + std::to_string(args.workspace ? args.workspace_bytes : 0) +
        " bytes, needs " + std::to_string(workspace_needed) + " (the variant's workspace_bytes)");
  }
}

std::size_t no_workspace(const AttentionShape&) {
  return 0;
}

// Query tiles of a head, and the grid: x the query tile, y the head.
dim3 flash_grid(const AttentionShape& shape, int queries_per_block, const char* who) {
  return cudalabs::checked_grid(ceil_div(shape.sequence, queries_per_block), shape.heads_total(), 1,
                                who);
}

template <class Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
}

// A fused rung named kWho in its messages: Tile's grid, block and shared memory, its kernel for
// head_dim 64 and 128, and the compute capability it needs (80: mma.sync, 90: sm_90a's wgmma).
template <const char* kWho, class Tile, auto kKernel64, auto kKernel128, int kNeedsArch>
struct FusedRung {
  static KernelLaunch describe(const AttentionShape& shape) {
    const void* kernel = shape.head_dim == 64 ? reinterpret_cast<const void*>(kKernel64)
                                              : reinterpret_cast<const void*>(kKernel128);
    // Raised as it is described, so that an occupancy query before the first launch sees it.
    cudalabs::allow_dynamic_shared_memory(kernel, Tile::shared_bytes(shape.head_dim));
    return {kernel, flash_grid(shape, Tile::kQueries, kWho), dim3(Tile::kThreads),
            Tile::shared_bytes(shape.head_dim)};
  }
  static std::string unavailable() {
    return missing_capability(kNeedsArch, reinterpret_cast<const void*>(kKernel128));
  }
  static void launch(const AttentionArgs& args, cudaStream_t stream) {
    validate_attention(args, 0, kWho);
    const KernelLaunch c = describe(args.shape);
    require_capability(kNeedsArch, c.kernel, kWho);
    const auto run = [&](auto kernel) {
      allow_shared(kernel, c.dynamic_shared_bytes);
      kernel<<<c.grid, c.block, c.dynamic_shared_bytes, stream>>>(args);
    };
    if (args.shape.head_dim == 64)
      run(kKernel64);
    else
      run(kKernel128);
    CUDA_CHECK_LAUNCH(kWho);
  }
};

}  // namespace
}  // namespace lab13
