// What bench_short_k11.cu and bench_lines11.cu share: checked CUDA calls, a GEMM problem of random
// BF16 operands (tightly packed: lda = K, ldb = N, ldc = N) with cuBLAS's result beside ours, and
// interleaved timing rounds. Included after the solution's kernels.cu.
#pragma once

#include "common/cublas_gemm.h"
#include "common/gemm_types.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#define CK(call)                                                                                \
  do {                                                                                          \
    cudaError_t e = (call);                                                                     \
    if (e != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

namespace bench {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Milliseconds `work` takes on `stream`, measured between two events.
double elapsed_ms(cudaStream_t stream, const std::function<void()>& work) {
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  CK(cudaEventRecord(start, stream));
  work();
  CK(cudaEventRecord(stop, stream));
  CK(cudaEventSynchronize(stop));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, start, stop));
  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(stop));
  return ms;
}

// Reads "MxNxK"; false (and a line on stderr) for anything else.
bool parse_shape(const char* text, int& m, int& n, int& k) {
  if (std::sscanf(text, "%dx%dx%d", &m, &n, &k) == 3 && m >= 1 && n >= 1 && k >= 1) return true;
  std::fprintf(stderr, "bad shape '%s'\n", text);
  return false;
}

// A GEMM of random BF16 operands in -1..1 on the device: `args` writes C, `reference` cuBLAS's C.
class Problem {
 public:
  Problem(int m, int n, int k, std::mt19937& rng, cudaStream_t stream)
      : stream_(stream), c_count_(static_cast<std::size_t>(m) * n) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<__nv_bfloat16> a(static_cast<std::size_t>(m) * k),
        b(static_cast<std::size_t>(k) * n);
    for (auto& x : a) x = __float2bfloat16(uniform(rng));
    for (auto& x : b) x = __float2bfloat16(uniform(rng));
    CK(cudaMalloc(&a_, a.size() * 2));
    CK(cudaMalloc(&b_, b.size() * 2));
    CK(cudaMalloc(&c_, c_count_ * 4));
    CK(cudaMalloc(&ref_, c_count_ * 4));
    CK(cudaMemcpyAsync(a_, a.data(), a.size() * 2, cudaMemcpyHostToDevice, stream));
    CK(cudaMemcpyAsync(b_, b.data(), b.size() * 2, cudaMemcpyHostToDevice, stream));
    args = {m, n, k, 1.0f, a_, k, b_, n, 0.0f, c_, n};
    reference = args;
    reference.c = ref_;
  }
  ~Problem() {
    CK(cudaFree(a_));
    CK(cudaFree(b_));
    CK(cudaFree(c_));
    CK(cudaFree(ref_));
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  // cuBLAS's C, into a poisoned `reference.c`, kept on the host for the checks below.
  void compute_reference(const cudalabs::CublasHandle& cublas) {
    CK(cudaMemsetAsync(ref_, 0xff, c_count_ * 4, stream_));
    cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream_);
    ref_host_.resize(c_count_);
    CK(cudaMemcpyAsync(ref_host_.data(), ref_, c_count_ * 4, cudaMemcpyDeviceToHost, stream_));
    CK(cudaStreamSynchronize(stream_));
  }

  // `run`'s C (C poisoned first) against cuBLAS's: relative L2 difference, infinite where C holds
  // a NaN (an element not written).
  double rel_l2_of(const std::function<void()>& run) {
    CK(cudaMemsetAsync(c_, 0xff, c_count_ * 4, stream_));
    run();
    std::vector<float> c(c_count_);
    CK(cudaMemcpyAsync(c.data(), c_, c_count_ * 4, cudaMemcpyDeviceToHost, stream_));
    CK(cudaStreamSynchronize(stream_));
    double diff = 0, norm = 0;
    for (std::size_t j = 0; j < c_count_; ++j) {
      const double d = static_cast<double>(c[j]) - ref_host_[j];
      diff += d * d;
      norm += static_cast<double>(ref_host_[j]) * ref_host_[j];
    }
    return std::isfinite(diff) ? std::sqrt(diff / norm) : INFINITY;
  }

  cudalabs::Bf16GemmArgs args;       ///< the GEMM into our C
  cudalabs::Bf16GemmArgs reference;  ///< the same into cuBLAS's C

 private:
  cudaStream_t stream_;
  std::size_t c_count_;
  __nv_bfloat16 *a_ = nullptr, *b_ = nullptr;
  float *c_ = nullptr, *ref_ = nullptr;
  std::vector<float> ref_host_;
};

// Microseconds a unit of each of `calls`, each of which runs `units` of its work (a loop of calls,
// or a graph of launches), timed between two events: 9 rounds, every one of `calls` in each, the
// first 2 not counted; medians.
std::vector<double> interleaved_us(cudaStream_t stream,
                                   const std::vector<std::function<void()>>& calls, int units) {
  std::vector<std::vector<double>> us(calls.size());
  for (int round = 0; round < 9; ++round)
    for (std::size_t w = 0; w < calls.size(); ++w) {
      const double ms = elapsed_ms(stream, calls[w]);
      if (round >= 2) us[w].push_back(1e3 * ms / units);
    }
  std::vector<double> medians;
  for (const auto& times : us) medians.push_back(median(times));
  return medians;
}

}  // namespace bench
