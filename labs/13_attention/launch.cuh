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
#include "fused_launch.cuh"
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

// ---- Attention (the fused rungs' plumbing: fused_launch.cuh) ----

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

constexpr char kFlashMma[] = "lab13 flash_mma";
constexpr char kFlashWgmma[] = "lab13 flash_wgmma";
using FlashMma = FusedRung<kFlashMma, MmaTile, &flash_mma_kernel<64>, &flash_mma_kernel<128>, 80>;
using FlashWgmma =
    FusedRung<kFlashWgmma, WgmmaTile, &flash_wgmma_kernel<64>, &flash_wgmma_kernel<128>, 90>;

constexpr AttentionVariant kAttentionVariants[] = {
    {"attention_naive", "scores to memory, softmax_online in place, then P V: three kernels",
     &launch_naive, &describe_naive, &naive_workspace, nullptr},
    {"flash_mma",
     "fused: K and V tiles through shared memory, mma.sync, online softmax in registers",
     &FlashMma::launch, &FlashMma::describe, &no_workspace, &FlashMma::unavailable},
    {"flash_wgmma", "fused on Hopper: wgmma from shared-memory descriptors, P from registers",
     &FlashWgmma::launch, &FlashWgmma::describe, &no_workspace, &FlashWgmma::unavailable},
};

}  // namespace

std::span<const SoftmaxVariant> softmax_variants() {
  return kSoftmaxVariants;
}

std::span<const AttentionVariant> attention_variants() {
  return kAttentionVariants;
}

}  // namespace lab13
