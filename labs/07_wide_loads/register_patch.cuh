// Lab 07, given: what a lane does with its register patch of C once the lab's lessons have filled
// it, the same in every step. The FFMAs of one step along K (lab 05's outer product), and the
// patch's stores with the alpha/beta update. Include it from your kernels.cu; nothing here is a
// TODO.
#pragma once

#include "common/gemm_device.cuh"
#include "common/gemm_types.h"

#include <cstdint>

namespace lab07 {

/// The TM x TN FFMAs of one step: acc[i][j] += a_frag[i] * b_frag[j]. The inner loop runs over the
/// longer fragment: measured on the H100, that order is 2-5 % faster for both 8 x 16 and 16 x 8
/// patches (it lets ptxas keep the shorter fragment's operand in the reuse cache across a longer
/// run of FFMAs).
template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&a_frag)[TM], const float (&b_frag)[TN],
                                              float (&acc)[TM][TN]) {
  if constexpr (TN >= TM) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
  } else {
#pragma unroll
    for (int j = 0; j < TN; ++j)
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
  }
}

/// C = alpha * acc + beta * C for one lane's TM x TN patch, made of 4 x 4 pieces: piece (g, h)
/// covers rows row + g * kPieceRows .. + 3 and columns col + h * kPieceCols .. + 3 (a patch of
/// consecutive rows and columns: kPieceRows = kPieceCols = 4). Nothing is stored outside C. With
/// kVectorStores, each row of a piece goes out as one 128-bit update where C allows it (16-byte
/// aligned with ldc a multiple of 4: one test for the whole kernel, so a misaligned C costs only
/// the stores) and its 4 columns are inside C; element by element otherwise.
template <int TM, int TN, int kPieceRows, int kPieceCols, bool kVectorStores>
__device__ __forceinline__ void store_patch(const cudalabs::GemmArgs& args, int row0, int col0,
                                            const float (&acc)[TM][TN]) {
  const bool c_vector =
      kVectorStores && reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0 && args.ldc % 4 == 0;
#pragma unroll
  for (int g = 0; g < TM / 4; ++g) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row = row0 + g * kPieceRows + r;
      if (row >= args.m) continue;
#pragma unroll
      for (int h = 0; h < TN / 4; ++h) {
        const int col = col0 + h * kPieceCols;
        const float* values = &acc[4 * g + r][4 * h];
        float* c = args.c + row * args.ldc + col;
        if (c_vector && col + 3 < args.n) {
          cudalabs::store_gemm_result4(c, make_float4(values[0], values[1], values[2], values[3]),
                                       args.alpha, args.beta);
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            if (col + q < args.n)
              cudalabs::store_gemm_result(c + q, values[q], args.alpha, args.beta);
          }
        }
      }
    }
  }
}

}  // namespace lab07
