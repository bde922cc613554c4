/// @file solutions/13_attention/attention_steps.h
/// @brief Lab 13 solution: the steps past the ladder toward FlashAttention-2 (mma.sync) and
/// FlashAttention-3 (wgmma), each the rung it improves with one change, so that one run checks and
/// times both. Not part of the lab's interface (the student's build has none): attention_steps.cu
/// (a translation unit of the solution's kernels beside kernels.cu) defines them,
/// tests/labs/lab13_grading_test.cpp (built as lab13_steps_tests) checks them on the grading cases,
/// and lab13_attention_steps times them.
#pragma once

#include "labs/13_attention/lab.h"

#include <span>

namespace lab13 {

/// One step past the ladder: the variant (its name, summary, launcher, ...) and the rung it
/// improves (the name of a variant of attention_variants() or of an earlier step).
struct AttentionStep {
  AttentionVariant variant;  ///< the step, launched and checked as a rung is
  const char* improves;      ///< the rung or step it is timed against
};

/// The steps:
/// - `flash_mma_ex2` (improves flash_mma): each exponent one FMA, the scale folded into the
///   maximum (FlashAttention-2's scale_apply_exp2), and ex2.approx.ftz instead of exp2f
///   (fused_softmax.cuh); nothing else changed
/// - `flash_mma_rows` (improves flash_mma_ex2): 32 queries a warp, 128 a block (FlashAttention-2's
///   tiles at head_dim 128): each K and V fragment read from shared memory feeds two mma.sync; Q
///   read from shared memory each tile instead of held in registers
/// - `flash_mma_prefetch` (improves flash_mma_rows): S = Q K^T's fragments loaded one step of
///   head_dim ahead (FlashAttention-2's gemm), so that no step starts waiting for ldmatrix
/// - `flash_mma_lazy` (improves flash_mma_rows): a row's maximum may lag the true one by up to 2^8
///   in the exponentials (FlashAttention-4's conditional rescaling, fused_softmax.cuh), so that the
///   outputs' rescaling is skipped while no row of the warp outgrows it
/// - `flash_mma_copies` (improves flash_mma_lazy): each thread's K and V copies at offsets computed
///   once (load_rows_unrolled), 16 cp.async a tile instead of a loop that divides and swizzles
/// - `flash_mma_chains` (improves flash_mma_copies): the softmax's maximum as a tree, its sum in
/// four
///   running sums, the mask computed only on the tiles that need it, behind a branch
/// - `flash_wgmma_2cta` (improves flash_wgmma): at most 128 registers, so that two blocks share an
///   SM and one's softmax runs while the other's wgmma do
/// - `flash_wgmma_overlap` (improves flash_wgmma): FlashAttention-3's intra-warpgroup overlap: the
///   softmax of tile t + 1 while the tensor cores run P(t) V(t)
/// - `flash_wgmma_overlap_128` (improves flash_wgmma_overlap): key tiles of 128 (FlashAttention-3's
///   at head_dim 128): S = Q K^T as m64n128k16, half the iterations and barriers
/// - `flash_wgmma_ws` (improves flash_wgmma_overlap_128): FlashAttention-3's warp specialisation:
///   a producer warpgroup (its registers lowered by setmaxnreg) copies K and V into rings of
///   stages guarded by mbarriers, two consumer warpgroups run the overlapped loop, no
///   __syncthreads in the loop (the producer's 128 threads copy with cp.async)
/// - `flash_wgmma_ws_pingpong` (improves flash_wgmma_ws): FlashAttention-3's ping-pong: the two
///   consumers issue their wgmma in turns (two named barriers), one's softmax under the other's
/// - `flash_wgmma_ws_tma` (improves flash_wgmma_ws_pingpong): the producer one thread issuing TMA
///   copies (3-D tensor maps of Q, K and V built for each launch) instead of 128 issuing cp.async
/// - `flash_wgmma_ws_lpt` (improves flash_wgmma_ws_tma): under the causal mask the blocks take
///   their query tiles longest first across the heads of a section whose K and V fit in the L2
///   cache (heaviest_first.h, FlashAttention-3's tile scheduler), not head after head
/// - `flash_wgmma_ws_lazy` (improves flash_wgmma_ws_lpt): flash_mma_lazy's lagging maximum
/// - `flash_wgmma_ws_176` (improves flash_wgmma_ws_lazy): key tiles of 176 (S as m64n176k16, TMA
///   boxes of 176 rows), FlashAttention-3's at head_dim 128
/// - `flash_wgmma_ws_chains` (improves flash_wgmma_ws_lazy): flash_mma_chains's softmax
/// - `flash_wgmma_ws_tiles` (improves flash_wgmma_ws_chains): key tiles of 176 without the mask and
///   128 under it (FlashAttention-3's choice)
/// - `flash_wgmma_ws_persistent` (improves flash_wgmma_ws_chains): a block an SM walking the query
///   tiles gridDim.x apart, two Q tiles, the K and V rings continuing from one tile to the next
std::span<const AttentionStep> attention_steps();

}  // namespace lab13
