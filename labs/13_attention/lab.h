/// @file labs/13_attention/lab.h
/// @brief Lab 13 (extension): a row softmax (naive, online, fused), then attention's forward pass
/// for BF16 inputs: the naive three kernels, a FlashAttention-style fused kernel on the tensor
/// cores with mma.sync, and Hopper's wgmma (sm_90a); causal and not, any sequence length.
#pragma once

#include "common/gemm_variant.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

/// Lab 13: softmax and attention.
namespace lab13 {

// ---- Row softmax (FP32) ----

/// Threads per block of the softmax kernels.
inline constexpr int kSoftmaxThreads = 256;
/// Values each thread of the fused softmax keeps in registers at most: rows of up to
/// kSoftmaxThreads * kFusedMaxItems = 4096 columns are read once; longer rows twice.
inline constexpr int kFusedMaxItems = 16;

/// One softmax: output[r][c] = exp(input[r][c] - max_r) / sum over c' of exp(input[r][c'] - max_r)
/// for every row r, rows contiguous (row r starts at r * columns). An entry may be -infinity (a
/// masked score: its output is 0) as long as every row has a finite one. `output` may be `input`
/// (in place).
struct SoftmaxArgs {
  const float* input = nullptr;  ///< device, rows * columns floats
  float* output = nullptr;       ///< device, rows * columns floats (may equal input)
  int rows = 0;                  ///< >= 1
  int columns = 0;               ///< >= 1
};

/// One rung of the softmax's ladder.
struct SoftmaxVariant {
  const char* name;     ///< e.g. "softmax_online"
  const char* summary;  ///< one line: what this rung changes
  /// Validates (std::invalid_argument naming the argument) and enqueues the softmax on `stream`.
  void (*launch)(const SoftmaxArgs& args, cudaStream_t stream);
  /// The kernel's launch for a problem.
  cudalabs::KernelLaunch (*describe)(int rows, int columns);
};

/// The ladder:
/// - `softmax_naive`: one thread per row, three passes over the row (its maximum, the sum of the
///   exponentials, the outputs): the lanes of a warp read 32 different rows
/// - `softmax_online`: one warp per row; one pass keeps the running maximum and the sum of
///   exponentials together (rescaling the sum when the maximum grows), a second pass writes: the
///   row is read twice
/// - `softmax_fused`: one block per row held in registers: read once, written once (rows longer
///   than 4096 columns: the online two passes with the whole block)
std::span<const SoftmaxVariant> softmax_variants();

/// The unit roundoff of FP32, 2^-24.
inline constexpr double kUnitRoundoff = 0x1.0p-24;

/// The relative error bound of one softmax output whose input is `distance` below its row's
/// maximum, in a row of `columns`: |y - y_exact| <= softmax_relative_bound(...) * y_exact (+2^-120
/// for outputs that underflow). The terms: the exponent's argument rounded (2 distance u), the
/// exponential itself (2^-21: exp2f and __expf are well inside), the sum of `columns` positive
/// terms in any order (columns u), the division and the scaling by log2(e) (8 u).
double softmax_relative_bound(int columns, double distance);

/// The bound on |y - y_exact| for one softmax output whose exact value is `exact` and whose input
/// is `distance` below its row's maximum: softmax_relative_bound(columns, distance) * exact +
/// 2^-120. A masked input (-infinity: `distance` infinite, `exact` 0) must give 0 (within 2^-120):
/// there the relative term is 0, not infinity * 0.
double softmax_error_bound(int columns, double distance, double exact);

// ---- Attention (BF16 inputs and output, FP32 arithmetic) ----

/// The head dimensions the kernels take.
inline constexpr int kHeadDims[] = {64, 128};

/// A batch of attention heads, each O = softmax(scale * Q K^T [+ causal mask]) V with Q, K, V and
/// O of sequence x head_dim, stored as PyTorch's contiguous (batch, heads, sequence, head_dim).
struct AttentionShape {
  int batch = 1;        ///< >= 1
  int heads = 1;        ///< >= 1; batch * heads <= 65535
  int sequence = 1;     ///< >= 1, any length (queries and keys alike)
  int head_dim = 64;    ///< 64 or 128
  bool causal = false;  ///< query i sees keys 0 .. i only

  /// batch * heads.
  long long heads_total() const { return static_cast<long long>(batch) * heads; }
  /// Elements of one of Q, K, V, O.
  std::size_t elements() const {
    return static_cast<std::size_t>(heads_total()) * sequence * head_dim;
  }
  /// The useful floating-point operations: 4 * head_dim per (query, key) pair the mask keeps
  /// (QK^T and PV, a multiply and an add each): sequence^2 pairs, or sequence (sequence + 1) / 2
  /// with the causal mask.
  double flops() const;
  /// "b4h16s4096d128" (+ "_causal").
  std::string label() const;
};

/// 1 / sqrt(head_dim), the usual scale.
float default_scale(int head_dim);

/// One attention forward pass.
struct AttentionArgs {
  AttentionShape shape;              ///< the sizes
  const __nv_bfloat16* q = nullptr;  ///< device, 16-byte aligned
  const __nv_bfloat16* k = nullptr;  ///< device, 16-byte aligned
  const __nv_bfloat16* v = nullptr;  ///< device, 16-byte aligned
  __nv_bfloat16* o = nullptr;        ///< device, 16-byte aligned
  float scale = 0.125f;              ///< multiplies Q K^T, finite and > 0
  void* workspace = nullptr;         ///< device scratch of the variant's workspace_bytes(shape)
  std::size_t workspace_bytes = 0;   ///< size of `workspace`
};

/// One rung of attention's ladder.
struct AttentionVariant {
  const char* name;     ///< e.g. "flash_mma"
  const char* summary;  ///< one line: what this rung changes
  /// Validates (std::invalid_argument naming the argument) and enqueues the pass on `stream`.
  void (*launch)(const AttentionArgs& args, cudaStream_t stream);
  /// The main kernel's launch for a shape.
  cudalabs::KernelLaunch (*describe)(const AttentionShape& shape);
  /// Device scratch the launch needs, in bytes (0: none).
  std::size_t (*workspace_bytes)(const AttentionShape& shape);
  /// Why the rung cannot run on the current GPU or build (empty when it can); null: it runs on
  /// every GPU the suite supports.
  std::string (*unavailable)();
};

/// The ladder:
/// - `attention_naive` (given code, attention_naive.cuh): three kernels: the scores
///   S = scale Q K^T in FP32 (masked entries -infinity) into a sequence x sequence workspace per
///   head, softmax_online on it in place, and O = P V; the scores go through memory
/// - `flash_mma`: one block per 64 queries: K and V tiles of 64 keys stream through shared memory
///   (cp.async, two stages), S = Q K^T and O += P V on the tensor cores (mma.sync m16n8k16 fed by
///   ldmatrix), the softmax online in registers: no score reaches memory (compute capability 8.0)
/// - `flash_wgmma` (the optional challenge): the same on Hopper's warpgroup MMA: two warpgroups of
///   64 queries each, S from shared-memory descriptors, P straight from registers as wgmma's A
///   operand (sm_90a)
std::span<const AttentionVariant> attention_variants();

}  // namespace lab13

/// Which build of lab 13's kernels this program linked: "student" or "solution".
extern "C" const char* cudalabs_lab13_kernels_build();
