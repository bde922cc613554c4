/// @file split_finish.h
/// @brief What a GEMM kernel that splits K needs to sum its partial Cs itself, in the same launch:
/// the real C, the workspace of parts, and the arrival words through which the last part of a
/// region of C to arrive learns that it is the last (split_finish.cuh does the arithmetic,
/// arrival_words.h hands out the words). Host and device code: a planner's launch fills it in, the
/// kernel reads it.
#pragma once

#include "common/gemm_types.h"

#include <cuda_runtime.h>

namespace cudalabs {

/// C's side of a GEMM: where the sum of the parts goes, and how it is scaled.
struct GemmOutput {
  int m = 0;           ///< rows of C
  int n = 0;           ///< columns of C
  float alpha = 1.0f;  ///< scale of the sum of the parts
  float beta = 0.0f;   ///< scale of the old C
  float* c = nullptr;  ///< C, element (i, j) at c[i * ldc + j]
  int ldc = 0;         ///< leading dimension of C

  /// C's side of `args`.
  template <class Input>
  static GemmOutput of(const GemmArgsOf<Input>& args) {
    return {args.m, args.n, args.alpha, args.beta, args.c, args.ldc};
  }
};

/// Bits of an arrival word that count the arrivals of the launch using it; the bits above count
/// the launches that finished with it (the last arrival moves the word on to the next launch's
/// zero, so that no launch clears the words and no arrival needs more than an atomicAdd).
inline constexpr int kArrivalCountBits = 24;

/// Loads a thread of sum_parts_into_c (split_finish.cuh) has in flight at once: groups of four
/// columns of one part, or, where a region has no more groups than the threads summing it, parts
/// of one group (one at a time, each would wait an L2 round trip).
inline constexpr int kSumBatch = 8;

/// A split launch's means to finish in place: with `arrivals` null the launch writes its parts
/// and another kernel sums them (slice_sums.cuh); otherwise the last part of each region of C to
/// arrive sums all of its parts into C (split_finish.cuh).
struct SplitFinish {
  GemmOutput out;                          ///< the real C, alpha and beta
  unsigned long long* arrivals = nullptr;  ///< one word per region of C (null: no finish)
  long long slice_floats = 0;              ///< floats from one part of C to the next
  /// Whether the launch sums its parts itself.
  __host__ __device__ bool in_place() const { return arrivals != nullptr; }
};

}  // namespace cudalabs
