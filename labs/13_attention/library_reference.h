/// @file labs/13_attention/library_reference.h
/// @brief What lab 13's attention is timed against in the same process: attention as PyTorch's
/// "math" backend computes it, on cuBLAS's tensor cores (BF16 in, FP32 sums): the scores of every
/// head with one strided batched GEMM, a row softmax (causal mask applied) into BF16
/// probabilities, and P V with a second batched GEMM. PyTorch's fused backends run outside the
/// process (tools/pytorch_attention.py). A library of its own, linked by the drivers only.
#pragma once

#include "lab.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace lab13_library {

using lab13::AttentionShape;

/// cuBLAS attention for one shape, with its workspace (FP32 scores and BF16 probabilities of every
/// head: 6 sequence^2 bytes per head).
class CublasAttention {
 public:
  /// Allocates the workspace and a cuBLAS handle. Requires a GPU.
  explicit CublasAttention(const AttentionShape& shape);
  ~CublasAttention();
  CublasAttention(const CublasAttention&) = delete;
  CublasAttention& operator=(const CublasAttention&) = delete;

  /// O = softmax(scale Q K^T [causal]) V, enqueued on `stream`.
  void run(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
           float scale, cudaStream_t stream);

  /// Device bytes the workspace of `shape` takes.
  static std::size_t workspace_bytes(const AttentionShape& shape);

 private:
  AttentionShape shape_;
  cublasHandle_t handle_ = nullptr;
  float* scores_ = nullptr;
  __nv_bfloat16* probabilities_ = nullptr;
};

}  // namespace lab13_library
