// Lab 13 solution: the steps past the ladder (attention_steps.h), launched as the ladder's fused
// rungs are (fused_launch.cuh's FusedRung). A translation unit of its own, beside kernels.cu: the
// steps are not what a student hands in, and kernels.cu (the solution as one file) stays the
// ladder alone.
#include "attention_steps.h"

#include "attention_kernels.cuh"
#include "flash_mma_rows_kernel.cuh"
#include "flash_wgmma_kernel.cuh"
#include "flash_wgmma_overlap_kernel.cuh"
#include "flash_wgmma_ws_kernel.cuh"
#include "fused_launch.cuh"
#include "lab.h"
#include "tiles.h"

namespace lab13 {
namespace {

constexpr char kFlashMmaEx2[] = "lab13 flash_mma_ex2";
constexpr char kFlashMmaRows[] = "lab13 flash_mma_rows";
constexpr char kFlashMmaPrefetch[] = "lab13 flash_mma_prefetch";
constexpr char kFlashWgmma2Cta[] = "lab13 flash_wgmma_2cta";
constexpr char kFlashWgmmaOverlap[] = "lab13 flash_wgmma_overlap";
constexpr char kFlashWgmmaOverlap128[] = "lab13 flash_wgmma_overlap_128";
constexpr char kFlashWgmmaWs[] = "lab13 flash_wgmma_ws";
constexpr char kFlashWgmmaWsPingPong[] = "lab13 flash_wgmma_ws_pingpong";
using FlashMmaEx2 = FusedRung<kFlashMmaEx2, MmaRowsTile<1>, &flash_mma_rows_kernel<64, 1>,
                              &flash_mma_rows_kernel<128, 1>, 80>;
using FlashMmaRows = FusedRung<kFlashMmaRows, MmaRowsTile<2>, &flash_mma_rows_kernel<64, 2>,
                               &flash_mma_rows_kernel<128, 2>, 80>;
using FlashMmaPrefetch =
    FusedRung<kFlashMmaPrefetch, MmaRowsTile<2>, &flash_mma_rows_kernel<64, 2, true>,
              &flash_mma_rows_kernel<128, 2, true>, 80>;
using FlashWgmma2Cta = FusedRung<kFlashWgmma2Cta, WgmmaTile, &flash_wgmma_kernel<64, 2>,
                                 &flash_wgmma_kernel<128, 2>, 90>;
using FlashWgmmaOverlap =
    FusedRung<kFlashWgmmaOverlap, WgmmaKeysTile<64>, &flash_wgmma_overlap_kernel<64, 64>,
              &flash_wgmma_overlap_kernel<128, 64>, 90>;
using FlashWgmmaOverlap128 =
    FusedRung<kFlashWgmmaOverlap128, WgmmaKeysTile<128>, &flash_wgmma_overlap_kernel<64, 128>,
              &flash_wgmma_overlap_kernel<128, 128>, 90>;
using FlashWgmmaWs = FusedRung<kFlashWgmmaWs, WgmmaWsTile<128>, &flash_wgmma_ws_kernel<64, 128>,
                               &flash_wgmma_ws_kernel<128, 128>, 90>;
using FlashWgmmaWsPingPong =
    FusedRung<kFlashWgmmaWsPingPong, WgmmaWsTile<128>, &flash_wgmma_ws_kernel<64, 128, true>,
              &flash_wgmma_ws_kernel<128, 128, true>, 90>;

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
    {step_variant<FlashMmaPrefetch>("flash_mma_prefetch",
                                    "flash_mma_rows, each step's Q and first K fragments loaded "
                                    "during the step before (FlashAttention-2's gemm)"),
     "flash_mma_rows"},
    {step_variant<FlashWgmma2Cta>("flash_wgmma_2cta",
                                  "flash_wgmma at 128 registers, two blocks an SM: one's softmax "
                                  "under the other's wgmma"),
     "flash_wgmma"},
    {step_variant<FlashWgmmaOverlap>("flash_wgmma_overlap",
                                     "flash_wgmma, each tile's softmax while the tensor cores run "
                                     "the last P V (FlashAttention-3's overlap)"),
     "flash_wgmma"},
    {step_variant<FlashWgmmaOverlap128>("flash_wgmma_overlap_128",
                                        "flash_wgmma_overlap with key tiles of 128: S as "
                                        "m64n128k16, half the iterations"),
     "flash_wgmma_overlap"},
    {step_variant<FlashWgmmaWs>("flash_wgmma_ws",
                                "flash_wgmma_overlap_128 warp-specialised: a producer warpgroup "
                                "copies, two consumers compute, on mbarriers"),
     "flash_wgmma_overlap_128"},
    {step_variant<FlashWgmmaWsPingPong>("flash_wgmma_ws_pingpong",
                                        "flash_wgmma_ws, the consumers' wgmma in turns (named "
                                        "barriers): one's softmax under the other's products"),
     "flash_wgmma_ws"},
};

}  // namespace

std::span<const AttentionStep> attention_steps() {
  return kAttentionSteps;
}

}  // namespace lab13
