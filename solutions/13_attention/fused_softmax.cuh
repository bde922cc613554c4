// Lab 13 solution, steps past the ladder: the online softmax of one tile as FlashAttention-2
// computes it. The core's online_softmax (attention_kernels.cuh) scales every score to log2 units
// (an FMUL), subtracts the maximum (an FADD) and calls exp2f, which adds the instructions that keep
// subnormal results (ex2.approx.f32 without .ftz): about six instructions an exponential, 32 a
// thread a tile. Here the scores and the maximum stay the raw products, the exponent is one FMA,
// s scale_log2 - max scale_log2 (FlashAttention-2's scale_apply_exp2), and ex2.approx.ftz computes
// it: two instructions. The bound does not move: ex2.approx's relative error is about 2^-22 (the
// bound allows 2^-21), and a probability flushed below 2^-126 is far under the 2^-8 A[c] term.
// The factor the output needs comes back to the caller, which rescales the accumulators when it may
// (flash_wgmma_overlap: after the product still running on them has landed).
#pragma once

#include "softmax_kernels.cuh"  // kFullMask

#include <cmath>

namespace lab13 {

// 2^x on the multi-function unit alone (ex2.approx.ftz: results below 2^-126 flushed to 0).
__device__ __forceinline__ float exp2_unit(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// 2^x on the FMA units (FlashAttention-4's emulated exponential): x = n + f with n the nearest
// integer (the 1.5 2^23 trick: rounding by an addition, n in the sum's low bits), 2^f on
// [-1/2, 1/2] by a degree-3 polynomial (minimax for the relative error, fitted for this step),
// then n added to the exponent's bits. A probability goes to BF16 for P V, which keeps 8 bits, so
// the polynomial needs only about 13: relative error under 2^-12.5 (checked against 2^x for every
// x from -126 to 8 in steps of 0.005), 16 times below BF16's rounding of it. Results below 2^-126
// are 0, as ex2.approx.ftz gives them; x at most 127. Eight instructions on the FMA and integer
// pipes instead of one on the multi-function unit, which does 16 exponentials a clock an SM.
__device__ __forceinline__ float exp2_fma(float x) {
  constexpr float kRound = 12582912.0f;  // 1.5 2^23
  const float shifted = x + kRound;
  const float n = shifted - kRound;
  const float f = x - n;
  float p = 5.517166853e-2f;
  p = fmaf(p, f, 2.426111251e-1f);
  p = fmaf(p, f, 6.932609677e-1f);
  p = fmaf(p, f, 9.999280572e-1f);
  const int exponent = (__float_as_int(shifted) - __float_as_int(kRound)) << 23;
  return x < -126.0f ? 0.0f : __int_as_float(__float_as_int(p) + exponent);
}

// The steps' choices of how a tile's softmax is computed, as flags (kernel template arguments are
// plain numbers):
// - kLazyRescale: a row's maximum may stay behind the true one by up to 2^kStaleMaxLog2 in the
//   exponentials (FlashAttention-4's conditional rescaling): its probabilities are then at most 2^8
//   instead of 1, which neither BF16 (the same relative rounding at any exponent) nor the FP32 sums
//   mind, and the output's rescaling is skipped for as long as no row of the warp outgrows it;
// - kShortChains: the tile's maximum as a tree and its sum in four running sums instead of one
//   chain through every score (each step waits for the one before: a 32-long chain of FADDs
//   a row at 128 keys), and the mask only on the tiles that need it, behind a branch (predicated,
//   every tile paid its compares and selects).
// - kFmaExponentials: one probability in four by exp2_fma, the rest by exp2_unit, so that the
//   multi-function unit, which every exponential otherwise queues for, has a quarter less to do.
constexpr int kLazyRescale = 1;
constexpr int kShortChains = 2;
constexpr int kFmaExponentials = 4;
constexpr float kStaleMaxLog2 = 8.0f;  // kLazyRescale's lag, in log2 units

// The online softmax of one tile for a thread's two rows (r = 0: row lane / 4, r = 1: eight rows
// below) whose masked, unscaled scores are s[block][e] with e / 2 == r: replaces them by
// exp2(s scale_log2 - max scale_log2), rescales the row's sum, updates the maximum (raw), and
// gives the factor exp2((old max - new max) scale_log2) the row's output accumulators need in
// `rescale`. kSteps: the flags above. With kLazyRescale the maximum moves only when the tile's
// exceeds it by kStaleMaxLog2 (in log2 units), else the factor is exactly 1, and the return says
// whether any lane of the warp has a factor other than 1 (all lanes must call it): if none has,
// rescaling the output changes nothing.
template <int kSteps = 0, int kScoreBlocks>
__device__ __forceinline__ bool softmax_tile(float (&s)[kScoreBlocks][4], float (&row_max)[2],
                                             float (&row_sum)[2], float (&rescale)[2],
                                             float scale_log2) {
  constexpr bool kLazy = (kSteps & kLazyRescale) != 0, kShort = (kSteps & kShortChains) != 0;
  constexpr bool kFma = (kSteps & kFmaExponentials) != 0;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float tile_max = -INFINITY;
    if constexpr (kShort) {
      float m[kScoreBlocks];
#pragma unroll
      for (int j = 0; j < kScoreBlocks; ++j) m[j] = fmaxf(s[j][2 * r], s[j][2 * r + 1]);
#pragma unroll
      for (int width = 1; width < kScoreBlocks; width *= 2)
#pragma unroll
        for (int j = 0; j + width < kScoreBlocks; j += 2 * width) m[j] = fmaxf(m[j], m[j + width]);
      tile_max = m[0];
    } else {
#pragma unroll
      for (int j = 0; j < kScoreBlocks; ++j)
        tile_max = fmaxf(tile_max, fmaxf(s[j][2 * r], s[j][2 * r + 1]));
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(kFullMask, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(kFullMask, tile_max, 2));
    // kLazy: a finite maximum stays unless this tile's is 2^kStaleMaxLog2 above it (a row masked
    // so far takes the tile's).
    const bool stays =
        kLazy && row_max[r] != -INFINITY && (tile_max - row_max[r]) * scale_log2 <= kStaleMaxLog2;
    const float new_max = stays ? row_max[r] : fmaxf(row_max[r], tile_max);
    // 0 while every key so far is masked, so that a masked score's exponent stays -infinity.
    const float base = new_max == -INFINITY ? 0.0f : new_max * scale_log2;
    // From the difference of the maxima, as FlashAttention-2 does: exactly 1 while the maximum
    // stays (fma(old, scale, -base) would be the rounding error of base, compounding tile after
    // tile); 0 on the first tile with a key, 1 while none has been (the sums are 0 then).
    rescale[r] =
        stays || new_max == -INFINITY ? 1.0f : exp2_unit((row_max[r] - new_max) * scale_log2);
    row_max[r] = new_max;
    row_sum[r] *= rescale[r];
    constexpr int kSums = kShort ? 4 : 1;
    float sums[kSums] = {};
#pragma unroll
    for (int j = 0; j < kScoreBlocks; ++j) {
#pragma unroll
      for (int e = 2 * r; e < 2 * r + 2; ++e) {
        const float exponent = fmaf(s[j][e], scale_log2, -base);
        s[j][e] = kFma && (2 * j + e) % 4 == 0 ? exp2_fma(exponent) : exp2_unit(exponent);
        if constexpr (kShort)
          sums[(2 * j + e) % kSums] += s[j][e];
        else
          row_sum[r] += s[j][e];
      }
    }
    if constexpr (kShort) row_sum[r] += (sums[0] + sums[1]) + (sums[2] + sums[3]);
  }
  if constexpr (kLazy) return __any_sync(kFullMask, rescale[0] != 1.0f || rescale[1] != 1.0f);
  return true;  // (not asked: the steps before this one always rescale)
}

// Multiplies each of the thread's two rows of output accumulators by its factor.
template <int kOutBlocks>
__device__ __forceinline__ void rescale_output(float (&o)[kOutBlocks][4],
                                               const float (&rescale)[2]) {
#pragma unroll
  for (int j = 0; j < kOutBlocks; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) o[j][e] *= rescale[e / 2];
}

}  // namespace lab13
