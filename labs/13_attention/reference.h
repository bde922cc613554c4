/// @file labs/13_attention/reference.h
/// @brief Lab 13's CPU references and inputs: the row softmax and attention in double, with the
/// error bounds the GPU's results are held to (tested in tests/labs/lab13_reference_test.cpp).
#pragma once

#include "lab.h"

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace lab13 {

/// The softmax of one row in double: exp(x - max) / sum of exp(x' - max); -infinity gives 0.
std::vector<double> reference_softmax_row(std::span<const float> row);

/// What a softmax's inputs look like.
enum class SoftmaxInputs {
  kUniform,  ///< uniform in [-10, 10)
  kLarge,    ///< uniform in [-100, 100): exp(x) overflows FP32 unless the maximum is subtracted
  kMasked,   ///< uniform in [-10, 10) with about a third of the entries -infinity (never a whole
             ///< row)
};

/// "uniform", "large" or "masked".
const char* softmax_inputs_name(SoftmaxInputs inputs);

/// rows * columns inputs drawn as `inputs` says.
std::vector<float> softmax_inputs(int rows, int columns, SoftmaxInputs inputs, std::uint64_t seed);

/// `count` BF16 values uniform in [lo, hi): the values the GPU reads (and, in `as_float`, the same
/// values in FP32 for the CPU reference).
std::vector<__nv_bfloat16> bf16_inputs(std::size_t count, float lo, float hi, std::uint64_t seed,
                                       std::vector<float>& as_float);

/// One query's attention in double, with what its error bound needs.
struct AttentionRowReference {
  std::vector<double> output;     ///< O[c], head_dim values
  std::vector<double> magnitude;  ///< A[c] = sum over keys j of P[j] |V[j][c]|
  double score_error = 0.0;       ///< the bound on an FP32 score's error (tensor-core sums)
};

/// Query `query` of head `head` (of batch * heads): Q, K, V in FP32 (BF16 values), laid out as
/// AttentionShape says.
AttentionRowReference reference_attention_row(const AttentionShape& shape, float scale,
                                              std::span<const float> q, std::span<const float> k,
                                              std::span<const float> v, long long head, int query);

/// The bound on |O[c] - reference| for one output of a BF16 attention with FP32 arithmetic:
///   2^-8 |O| (the output rounded to BF16)
///   + (2^-8 (the probabilities rounded to BF16 before P V) + 4 score_error (a score's error moves
///      its probability and the row's sum) + (sequence + 16) u (the FP32 sums over the keys)
///      + 2^-20 (the exponentials)) * A[c].
double attention_tolerance(const AttentionRowReference& reference, int column, int sequence);

}  // namespace lab13
