// A BF16 GEMM laid out with padded rows and offset pointers, for the benches of later records that
// time lab 11 at any layout (first: lab11_short_k_s46_nvidia-h100's bench_short_k11.cu). Earlier
// benches (sessions 36 to 40) carry their own copy of the same struct, as they were run.
//
//   MxNxK[+PA,PB,PC,OFF]: PA, PB, PC elements added to lda, ldb and ldc (lda = K + PA, ...); OFF
//   elements between each allocation's start and its matrix (OFF 1 leaves BF16 rows 2-byte aligned,
//   OFF 2 4-byte).
// Included after bench_support.cuh.
#pragma once

#include "bench_support.cuh"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace bench {

struct LaidOutGemm {
  int m = 0, n = 0, k = 0, pa = 0, pb = 0, pc = 0, off = 0;
  __nv_bfloat16 *a = nullptr, *b = nullptr;
  float *c = nullptr, *ref = nullptr;  ///< ours and cuBLAS's
  std::size_t c_count = 0;

  /// Reads `text` as MxNxK[+PA,PB,PC,OFF]; false (and a line on stderr) if it is not one.
  bool parse(const char* text) {
    const int read = std::sscanf(text, "%dx%dx%d+%d,%d,%d,%d", &m, &n, &k, &pa, &pb, &pc, &off);
    if ((read == 3 || read == 7) && m >= 1 && n >= 1 && k >= 1 && pa >= 0 && pb >= 0 && pc >= 0 &&
        off >= 0)
      return true;
    std::fprintf(stderr, "bad shape '%s'\n", text);
    return false;
  }

  /// Allocates the operands, random in -1..1, and both Cs.
  void allocate(std::mt19937& rng) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    const std::size_t a_count = static_cast<std::size_t>(m) * (k + pa) + off;
    const std::size_t b_count = static_cast<std::size_t>(k) * (n + pb) + off;
    c_count = static_cast<std::size_t>(m) * (n + pc) + off;
    std::vector<__nv_bfloat16> host_a(a_count), host_b(b_count);
    for (auto& x : host_a) x = __float2bfloat16(uniform(rng));
    for (auto& x : host_b) x = __float2bfloat16(uniform(rng));
    CK(cudaMalloc(&a, a_count * 2));
    CK(cudaMalloc(&b, b_count * 2));
    CK(cudaMalloc(&c, c_count * 4));
    CK(cudaMalloc(&ref, c_count * 4));
    CK(cudaMemcpy(a, host_a.data(), a_count * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, host_b.data(), b_count * 2, cudaMemcpyHostToDevice));
  }

  void release() {
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c),
                    static_cast<void*>(ref)})
      CK(cudaFree(p));
    a = b = nullptr;
    c = ref = nullptr;
  }

  /// The GEMM writing into `into` (c or ref), alpha 1, beta 0.
  cudalabs::Bf16GemmArgs args(float* into) const {
    return {m, n, k, 1.0f, a + off, k + pa, b + off, n + pb, 0.0f, into + off, n + pc};
  }

  /// Both Cs poisoned, then `ours` (writing args(c)) and cuBLAS (args(ref)) run: the relative L2
  /// difference over C's rows (padding left out); infinite where ours left a NaN.
  template <class Ours>
  double rel_l2_after(Ours ours, cudalabs::CublasHandle& cublas, cudaStream_t stream) {
    CK(cudaMemset(ref, 0xff, c_count * 4));
    CK(cudaMemset(c, 0xff, c_count * 4));
    cudalabs::cublas_gemm_bf16_row_major(cublas, args(ref), stream);
    ours();
    CK(cudaStreamSynchronize(stream));
    CK(cudaGetLastError());
    std::vector<float> got(c_count), expected(c_count);
    CK(cudaMemcpy(got.data(), c, c_count * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(expected.data(), ref, c_count * 4, cudaMemcpyDeviceToHost));
    double diff = 0, norm = 0;
    for (int r = 0; r < m; ++r)
      for (int j = 0; j < n; ++j) {
        const std::size_t at = off + static_cast<std::size_t>(r) * (n + pc) + j;
        const double d = static_cast<double>(got[at]) - expected[at];
        diff += d * d;
        norm += static_cast<double>(expected[at]) * expected[at];
      }
    return std::isfinite(diff) ? std::sqrt(diff / norm) : INFINITY;
  }
};

}  // namespace bench
