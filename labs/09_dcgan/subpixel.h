/// @file labs/09_dcgan/subpixel.h
/// @brief The sub-pixel (phase) decomposition of the 5 x 5, stride-2 transposed convolution.
///
/// Output row y = 2 i + p (phase p = y mod 2) only ever meets input rows through filter rows r of
/// one parity: r = 1 + 2 t (p = 0: two taps, input rows i, i - 1) or r = 2 t (p = 1: three taps,
/// input rows i + 1, i, i - 1). So each of the four phases (py, px) is an ordinary convolution of
/// the input with a 2 or 3 by 2 or 3 filter, and none of the inserted zeros is ever multiplied
/// ([DCGAN-SHPC] eqs. 1-14 multiply every zero of J).
///
/// Per phase this is a GEMM: rows = (image, i, j), one per input pixel; columns = K; reduction over
/// (tap, c). The packed filter holds, per phase, that GEMM's B: taps x C rows by K columns,
/// row (ty * taps_x + tx) * C + c, column k = filter[r(ty)][s(tx)][k][c]. Phases are stored and
/// launched heaviest first: phase z = 0..3 is (py, px) = (1, 1), (1, 0), (0, 1), (0, 0).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace lab09::subpixel {

/// Reduction steps per shared-memory tile: 8 channels of one tap, so a tile never straddles two
/// taps (hence in_channels % 8 == 0) and each row of it is two aligned float4 loads.
inline constexpr int kTileK = 8;
/// Up to this many output channels, tconv_subpixel computes output patches per thread instead of
/// GEMM tiles (the RGB layer), with the whole filter in shared memory as one float4 of output
/// channels per (r, s, c): 25 C float4s, at most kSmallKSharedBytes.
inline constexpr int kMaxSmallK = 4;
/// Input pixels per thread in that case (columns 4 g .. 4 g + 3 of one input row): the thread
/// writes their 2 x 2 outputs each, all four phases.
inline constexpr int kSmallKPixels = 4;
/// Shared memory the RGB layer's filter may take (the default per-block limit, no opt-in).
inline constexpr std::size_t kSmallKSharedBytes = 48 * 1024;

/// Output-row parity of phase z (0..3).
__host__ __device__ inline int phase_row(int z) {
  return 1 - (z >> 1);
}
/// Output-column parity of phase z.
__host__ __device__ inline int phase_col(int z) {
  return 1 - (z & 1);
}
/// Taps along an axis for parity p: 2 for even outputs, 3 for odd ones.
__host__ __device__ inline int taps(int parity) {
  return parity == 0 ? 2 : 3;
}
/// Filter index of tap t for parity p.
__host__ __device__ inline int filter_index(int parity, int tap) {
  return parity == 0 ? 1 + 2 * tap : 2 * tap;
}
/// Input offset of tap t for parity p: output 2 i + p reads input i + offset.
__host__ __device__ inline int input_offset(int parity, int tap) {
  return parity == 0 ? -tap : 1 - tap;
}

/// The taps of parity p that reach inside an axis of `size` inputs from position i: they are
/// consecutive (the offsets fall by one a tap), the first is `first` and there are `count`.
__host__ __device__ inline void reaching_taps(int parity, int i, int size, int& first, int& count) {
  first = 0;
  count = 0;
  for (int t = 0; t < taps(parity); ++t) {
    const int input = i + input_offset(parity, t);
    if (input < 0 || input >= size) continue;
    if (count == 0) first = t;
    ++count;
  }
}

/// Floats of phase z's packed B (taps_y * taps_x * C rows, K columns).
__host__ __device__ inline std::size_t phase_floats(int z, int in_channels, int out_channels) {
  return static_cast<std::size_t>(taps(phase_row(z)) * taps(phase_col(z))) * in_channels *
         out_channels;
}
/// Where phase z's B starts in the packed filter.
__host__ __device__ inline std::size_t phase_start(int z, int in_channels, int out_channels) {
  std::size_t start = 0;
  for (int before = 0; before < z; ++before)
    start += phase_floats(before, in_channels, out_channels);
  return start;
}

}  // namespace lab09::subpixel
