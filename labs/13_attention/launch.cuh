// Lab 13 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining the kernels): argument checks, grids, shared memory, what each rung needs of the
// GPU, and the variant lists.
//
// Softmax: softmax_naive one thread per row (blocks of 256 rows), softmax_online one warp per row
// (8 rows a block), softmax_fused one block of 256 per row with kItems = the smallest power of two
// of values per thread that holds the row (0: longer than 4096 columns, two passes).
// Attention: attention_naive's scores kernel has one thread per score (16 x 16 blocks, a z-slice
// per head), its values kernel one thread per output (a block of head_dim threads per query and
// head); flash_mma a block per 64 queries of a head, flash_wgmma a block per 128. With the causal
// mask the query tiles run last-first: the longest (the last queries see every key) start first.
#pragma once

#include "common/argument_checks.h"
#include "common/build_report.h"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"
#include "tiles.h"

#include <cmath>
#include <cstdint>
#include <limits>
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

// ---- Softmax ----

void validate_softmax(const SoftmaxArgs& args, const std::string& who) {
  require_pointer(args.input, "input", who);
  require_pointer(args.output, "output", who);
  require_aligned(args.input, alignof(float), "input", who);
  require_aligned(args.output, alignof(float), "output", who);
  cudalabs::require_positive(who, "rows", args.rows);
  cudalabs::require_positive(who, "columns", args.columns);
  const auto in = reinterpret_cast<std::uintptr_t>(args.input);
  const auto out = reinterpret_cast<std::uintptr_t>(args.output);
  const std::uintptr_t bytes =
      static_cast<std::uintptr_t>(args.rows) * args.columns * sizeof(float);
  if (in != out && in < out + bytes && out < in + bytes) {
    throw std::invalid_argument(who + ": output overlaps input without being it (in place is " +
                                "output == input)");
  }
}

KernelLaunch describe_softmax_naive(int rows, int) {
  return {reinterpret_cast<const void*>(&softmax_naive_kernel),
          cudalabs::checked_grid(ceil_div(rows, kSoftmaxThreads), 1, 1, "lab13 softmax_naive"),
          dim3(kSoftmaxThreads), 0};
}

void launch_softmax_naive(const SoftmaxArgs& args, cudaStream_t stream) {
  validate_softmax(args, "lab13 softmax_naive");
  const KernelLaunch config = describe_softmax_naive(args.rows, args.columns);
  softmax_naive_kernel<<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab13 softmax_naive_kernel");
}

constexpr int kRowsPerOnlineBlock = kSoftmaxThreads / 32;  // a warp per row

KernelLaunch describe_softmax_online(int rows, int) {
  return {reinterpret_cast<const void*>(&softmax_online_kernel),
          cudalabs::checked_grid(ceil_div(rows, kRowsPerOnlineBlock), 1, 1, "lab13 softmax_online"),
          dim3(kSoftmaxThreads), 0};
}

void launch_softmax_online(const SoftmaxArgs& args, cudaStream_t stream) {
  validate_softmax(args, "lab13 softmax_online");
  const KernelLaunch config = describe_softmax_online(args.rows, args.columns);
  softmax_online_kernel<<<config.grid, config.block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("lab13 softmax_online_kernel");
}

// The fused kernel's values per thread for a row: 1, 2, 4, 8 or 16, or 0 (two passes) past 4096.
int fused_items(int columns) {
  for (int items = 1; items <= kFusedMaxItems; items *= 2)
    if (columns <= items * kSoftmaxThreads) return items;
  return 0;
}

template <int kItems>
const void* fused_kernel() {
  return reinterpret_cast<const void*>(&softmax_fused_kernel<kItems>);
}

KernelLaunch describe_softmax_fused(int rows, int columns) {
  const void* kernels[] = {fused_kernel<0>(), fused_kernel<1>(), fused_kernel<2>(),
                           fused_kernel<4>(), fused_kernel<8>(), fused_kernel<16>()};
  const int items = fused_items(columns);
  const int index = items == 0 ? 0 : 1 + static_cast<int>(std::log2(items));
  return {kernels[index], cudalabs::checked_grid(rows, 1, 1, "lab13 softmax_fused"),
          dim3(kSoftmaxThreads), 0};
}

void launch_softmax_fused(const SoftmaxArgs& args, cudaStream_t stream) {
  validate_softmax(args, "lab13 softmax_fused");
  const KernelLaunch c = describe_softmax_fused(args.rows, args.columns);
  switch (fused_items(args.columns)) {
    case 1:
      softmax_fused_kernel<1><<<c.grid, c.block, 0, stream>>>(args);
      break;
    case 2:
      softmax_fused_kernel<2><<<c.grid, c.block, 0, stream>>>(args);
      break;
    case 4:
      softmax_fused_kernel<4><<<c.grid, c.block, 0, stream>>>(args);
      break;
    case 8:
      softmax_fused_kernel<8><<<c.grid, c.block, 0, stream>>>(args);
      break;
    case 16:
      softmax_fused_kernel<16><<<c.grid, c.block, 0, stream>>>(args);
      break;
    default:
      softmax_fused_kernel<0><<<c.grid, c.block, 0, stream>>>(args);
      break;
  }
  CUDA_CHECK_LAUNCH("lab13 softmax_fused_kernel");
}

constexpr SoftmaxVariant kSoftmaxVariants[] = {
    {"softmax_naive", "one thread per row, three passes over it", &launch_softmax_naive,
     &describe_softmax_naive},
    {"softmax_online", "one warp per row, maximum and sum in one pass, then the outputs",
     &launch_softmax_online, &describe_softmax_online},
    {"softmax_fused", "one block per row kept in registers: read once, written once",
     &launch_softmax_fused, &describe_softmax_fused},
};

// ---- Attention ----

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

// attention_naive: the FP32 scores (then probabilities) of every head, and one more row that tells
// whether the softmax ran (attention_naive.cuh).
std::size_t naive_workspace(const AttentionShape& shape) {
  return (static_cast<std::size_t>(shape.heads_total()) * shape.sequence + 1) * shape.sequence *
         sizeof(float);
}

constexpr int kScoreTile = 16;  // the scores kernel's blocks: 16 x 16 scores

KernelLaunch describe_naive(const AttentionShape& shape) {
  return {reinterpret_cast<const void*>(&attention_scores_kernel),
          cudalabs::checked_grid(ceil_div(shape.sequence, kScoreTile),
                                 ceil_div(shape.sequence, kScoreTile), shape.heads_total(),
                                 "lab13 attention_naive"),
          dim3(kScoreTile, kScoreTile), 0};
}

void launch_naive(const AttentionArgs& args, cudaStream_t stream) {
  const char* who = "lab13 attention_naive";
  const AttentionShape& s = args.shape;
  validate_attention(args, naive_workspace(s), who);
  if (s.heads_total() * s.sequence >= std::numeric_limits<int>::max()) {
    throw std::invalid_argument(
        std::string(who) +
        ": batch * heads * sequence = " + std::to_string(s.heads_total() * s.sequence) +
        " rows of scores (and one more) must fit an int (the softmax's rows)");
  }
  auto* scores = static_cast<float*>(args.workspace);
  const KernelLaunch config = describe_naive(s);
  attention_scores_kernel<<<config.grid, config.block, 0, stream>>>(args, scores);
  CUDA_CHECK_LAUNCH("lab13 attention_scores_kernel");
  // Step 2's online softmax, in place: every row of scores becomes a row of probabilities, and the
  // row of zeros after them a row of 1 / sequence.
  launch_softmax_online(
      {scores, scores, static_cast<int>(s.heads_total() * s.sequence + 1), s.sequence}, stream);
  attention_values_kernel<<<cudalabs::checked_grid(s.sequence, s.heads_total(), 1, who), s.head_dim,
                            0, stream>>>(args, scores);
  CUDA_CHECK_LAUNCH("lab13 attention_values_kernel");
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

KernelLaunch describe_flash_mma(const AttentionShape& shape) {
  const void* kernel = shape.head_dim == 64 ? reinterpret_cast<const void*>(&flash_mma_kernel<64>)
                                            : reinterpret_cast<const void*>(&flash_mma_kernel<128>);
  cudalabs::allow_dynamic_shared_memory(kernel, MmaTile::shared_bytes(shape.head_dim));
  return {kernel, flash_grid(shape, MmaTile::kQueries, "lab13 flash_mma"), dim3(MmaTile::kThreads),
          MmaTile::shared_bytes(shape.head_dim)};
}

std::string flash_mma_unavailable() {
  return missing_capability(80, reinterpret_cast<const void*>(&flash_mma_kernel<128>));
}

void launch_flash_mma(const AttentionArgs& args, cudaStream_t stream) {
  const char* who = "lab13 flash_mma";
  validate_attention(args, 0, who);
  const KernelLaunch c = describe_flash_mma(args.shape);
  require_capability(80, c.kernel, who);
  if (args.shape.head_dim == 64) {
    allow_shared(&flash_mma_kernel<64>, c.dynamic_shared_bytes);
    flash_mma_kernel<64><<<c.grid, c.block, c.dynamic_shared_bytes, stream>>>(args);
  } else {
    allow_shared(&flash_mma_kernel<128>, c.dynamic_shared_bytes);
    flash_mma_kernel<128><<<c.grid, c.block, c.dynamic_shared_bytes, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("lab13 flash_mma_kernel");
}

KernelLaunch describe_flash_wgmma(const AttentionShape& shape) {
  const void* kernel = shape.head_dim == 64
                           ? reinterpret_cast<const void*>(&flash_wgmma_kernel<64>)
                           : reinterpret_cast<const void*>(&flash_wgmma_kernel<128>);
  cudalabs::allow_dynamic_shared_memory(kernel, WgmmaTile::shared_bytes(shape.head_dim));
  return {kernel, flash_grid(shape, WgmmaTile::kQueries, "lab13 flash_wgmma"),
          dim3(WgmmaTile::kThreads), WgmmaTile::shared_bytes(shape.head_dim)};
}

std::string flash_wgmma_unavailable() {
  return missing_capability(90, reinterpret_cast<const void*>(&flash_wgmma_kernel<128>));
}

void launch_flash_wgmma(const AttentionArgs& args, cudaStream_t stream) {
  const char* who = "lab13 flash_wgmma";
  validate_attention(args, 0, who);
  const KernelLaunch c = describe_flash_wgmma(args.shape);
  require_capability(90, c.kernel, who);
  if (args.shape.head_dim == 64) {
    allow_shared(&flash_wgmma_kernel<64>, c.dynamic_shared_bytes);
    flash_wgmma_kernel<64><<<c.grid, c.block, c.dynamic_shared_bytes, stream>>>(args);
  } else {
    allow_shared(&flash_wgmma_kernel<128>, c.dynamic_shared_bytes);
    flash_wgmma_kernel<128><<<c.grid, c.block, c.dynamic_shared_bytes, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("lab13 flash_wgmma_kernel");
}

constexpr AttentionVariant kAttentionVariants[] = {
    {"attention_naive", "scores to memory, softmax_online in place, then P V: three kernels",
     &launch_naive, &describe_naive, &naive_workspace, nullptr},
    {"flash_mma",
     "fused: K and V tiles through shared memory, mma.sync, online softmax in registers",
     &launch_flash_mma, &describe_flash_mma, &no_workspace, &flash_mma_unavailable},
    {"flash_wgmma", "fused on Hopper: wgmma from shared-memory descriptors, P from registers",
     &launch_flash_wgmma, &describe_flash_wgmma, &no_workspace, &flash_wgmma_unavailable},
};

}  // namespace

std::span<const SoftmaxVariant> softmax_variants() {
  return kSoftmaxVariants;
}

std::span<const AttentionVariant> attention_variants() {
  return kAttentionVariants;
}

}  // namespace lab13
