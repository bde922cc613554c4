// Lab 13 solution: the steps past the ladder (attention_steps.h), launched as the ladder's fused
// rungs are (launch.cuh's FusedRung). Included by kernels.cu after launch.cuh.
#pragma once

#include "attention_steps.h"
#include "flash_mma_rows_kernel.cuh"
#include "flash_wgmma_overlap_kernel.cuh"
#include "launch.cuh"

namespace lab13 {
namespace {

constexpr char kFlashMmaEx2[] = "lab13 flash_mma_ex2";
constexpr char kFlashMmaRows[] = "lab13 flash_mma_rows";
constexpr char kFlashWgmma2Cta[] = "lab13 flash_wgmma_2cta";
constexpr char kFlashWgmmaOverlap[] = "lab13 flash_wgmma_overlap";
using FlashMmaEx2 =
    FusedRung<kFlashMmaEx2, MmaTile, &flash_mma_kernel<64, true>, &flash_mma_kernel<128, true>, 80>;
using FlashMmaRows = FusedRung<kFlashMmaRows, MmaRowsTile<2>, &flash_mma_rows_kernel<64, 2>,
                               &flash_mma_rows_kernel<128, 2>, 80>;
using FlashWgmma2Cta = FusedRung<kFlashWgmma2Cta, WgmmaTile, &flash_wgmma_kernel<64, 2>,
                                 &flash_wgmma_kernel<128, 2>, 90>;
using FlashWgmmaOverlap = FusedRung<kFlashWgmmaOverlap, WgmmaTile, &flash_wgmma_overlap_kernel<64>,
                                    &flash_wgmma_overlap_kernel<128>, 90>;

template <class Rung>
constexpr AttentionVariant step_variant(const char* name, const char* summary) {
  return {name, summary, &Rung::launch, &Rung::describe, &no_workspace, &Rung::unavailable};
}

constexpr AttentionStep kAttentionSteps[] = {
    {step_variant<FlashMmaEx2>("flash_mma_ex2",
                               "flash_mma, each exponent one FMA (the scale folded in) and "
                               "ex2.approx.ftz"),
     "flash_mma"},
    {step_variant<FlashMmaRows>("flash_mma_rows",
                                "flash_mma_ex2 with 32 queries a warp, 128 a block: each K and V "
                                "fragment feeds two mma.sync"),
     "flash_mma_ex2"},
    {step_variant<FlashWgmma2Cta>("flash_wgmma_2cta",
                                  "flash_wgmma at 128 registers, two blocks an SM: one's softmax "
                                  "under the other's wgmma"),
     "flash_wgmma"},
    {step_variant<FlashWgmmaOverlap>("flash_wgmma_overlap",
                                     "flash_wgmma, each tile's softmax while the tensor cores run "
                                     "the last P V (FlashAttention-3's overlap)"),
     "flash_wgmma"},
};

}  // namespace

std::span<const AttentionStep> attention_steps() {
  return kAttentionSteps;
}

}  // namespace lab13
