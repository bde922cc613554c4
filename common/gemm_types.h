/// @file gemm_types.h
/// @brief The single-precision, row-major GEMM every lab computes: C = alpha * A * B + beta * C.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// CUDA's BF16 and FP16 types (cuda_bf16.h, cuda_fp16.h), named here without pulling CUDA headers
// into every file.
struct __nv_bfloat16;
struct __half;

namespace cudalabs {

/// The sizes of one GEMM: C is m x n, A is m x k, B is k x n.
struct GemmShape {
  int m = 0;  ///< rows of A and C
  int n = 0;  ///< columns of B and C
  int k = 0;  ///< columns of A, rows of B (the reduction length)

  /// "MxNxK", the way benchmark names write a problem.
  std::string label() const;
  /// Floating-point operations of the product: 2 m n k (one multiply and one add per term).
  double flops() const { return 2.0 * m * n * static_cast<double>(k); }
};

/// How the matrices of a problem sit in memory, beyond the tight row-major layout: extra elements
/// at the end of each row (lda = k + lda_padding, ...) and an offset of every matrix's first
/// element from a 256-byte aligned allocation (1 misaligns all three for 128-bit accesses).
struct GemmLayout {
  int lda_padding = 0;     ///< lda = k + lda_padding
  int ldb_padding = 0;     ///< ldb = n + ldb_padding
  int ldc_padding = 0;     ///< ldc = n + ldc_padding
  int pointer_offset = 0;  ///< floats between each allocation's start and its matrix

  /// The suffix benchmark names carry: "" for the tight layout, else "_ld+1" (all three padded
  /// alike), "_lda+1_ldc+3" (each its own), then "_off+1".
  std::string suffix() const;
};

/// A shape and a layout: one problem of a shape sweep, named "MxNxK" plus the layout's suffix.
struct GemmProblem {
  GemmShape shape;         ///< m, n, k
  GemmLayout layout = {};  ///< paddings and offset

  int lda() const { return shape.k + layout.lda_padding; }  ///< A's leading dimension
  int ldb() const { return shape.n + layout.ldb_padding; }  ///< B's leading dimension
  int ldc() const { return shape.n + layout.ldc_padding; }  ///< C's leading dimension
  /// e.g. "4095x4097x4099" or "4096x4096x4096_lda+1".
  std::string label() const { return shape.label() + layout.suffix(); }
};

/// Everything a GEMM kernel needs. All matrices are row-major with leading dimensions (the distance
/// in elements between the starts of two rows) that may exceed the row length. A and B hold
/// `Input` elements (float for labs 01-10, BF16 for lab 11's tensor cores); C is always float.
///
/// When beta == 0, C is write-only: its old contents are never read, so NaN or garbage there must
/// not leak into the result (the BLAS convention; the harness relies on it to detect unwritten
/// elements).
template <class Input>
struct GemmArgsOf {
  int m = 0;                 ///< rows of A and C
  int n = 0;                 ///< columns of B and C
  int k = 0;                 ///< columns of A, rows of B
  float alpha = 1.0f;        ///< scale of A * B
  const Input* a = nullptr;  ///< A, m x k, element (i, p) at a[i * lda + p]
  int lda = 0;               ///< leading dimension of A, >= k
  const Input* b = nullptr;  ///< B, k x n, element (p, j) at b[p * ldb + j]
  int ldb = 0;               ///< leading dimension of B, >= n
  float beta = 0.0f;         ///< scale of the old C
  float* c = nullptr;        ///< C, m x n, element (i, j) at c[i * ldc + j]
  int ldc = 0;               ///< leading dimension of C, >= n

  /// The shape of the product.
  GemmShape shape() const { return {m, n, k}; }
};

/// The single-precision GEMM of labs 01-10.
using GemmArgs = GemmArgsOf<float>;
/// Lab 11's GEMM: A and B in BF16, C and the arithmetic in FP32.
using Bf16GemmArgs = GemmArgsOf<__nv_bfloat16>;
/// Lab 11's FP16 rungs (the tensor cores of compute capability 7.5): A and B in FP16, C and the
/// arithmetic in FP32.
using Fp16GemmArgs = GemmArgsOf<__half>;

/// Checks sizes, leading dimensions and pointers before any launch and throws
/// std::invalid_argument naming the first bad argument and its value. It also refuses matrices
/// whose element offsets do not fit in a 32-bit int, which the kernels use for indexing.
/// @param args  the GEMM to check
/// @param who   the caller's name, which starts the message (e.g. "lab01 naive_coalesced")
template <class Input>
void validate_gemm_args(const GemmArgsOf<Input>& args, const std::string& who);

/// Checks a shape before anything is allocated: every size >= 1 and every matrix (with leading
/// dimension equal to its row length) addressable with 32-bit offsets. Throws std::invalid_argument
/// starting with `who`.
void validate_gemm_shape(const GemmShape& shape, const std::string& who);

/// Parses a comma-separated list of shapes, each "MxNxK" or a single N for an N x N x N cube
/// ("256,1024,65536x64x3200"). Throws std::invalid_argument naming `flag` and the bad item.
std::vector<GemmShape> parse_gemm_shapes(const std::string& flag, const std::string& text);

/// Parses a comma-separated list of problems: each a shape as parse_gemm_shapes reads it, then
/// optional layout parts, each after an underscore: ld+P (lda, ldb and ldc padded by P), lda+P,
/// ldb+P, ldc+P, off+O (pointer offset), P and O from 0 to 1024; e.g.
/// "4096,4095x4097x4099_ld+1,4096_lda+2_off+1". Throws std::invalid_argument naming `flag` and the
/// bad item.
std::vector<GemmProblem> parse_gemm_problems(const std::string& flag, const std::string& text);

/// Checks a problem before anything is allocated, as validate_gemm_shape does, with the padded
/// leading dimensions counted (the offset moves the pointers the kernels index from, not the
/// offsets they compute).
void validate_gemm_problem(const GemmProblem& problem, const std::string& who);

/// Number of floats a row-major matrix of `rows` rows with leading dimension `ld` occupies:
/// (rows - 1) * ld + cols. Throws std::invalid_argument when rows or cols are below 1 or ld < cols.
std::int64_t matrix_span(int rows, int cols, int ld);

}  // namespace cudalabs
