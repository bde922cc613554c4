// Lab 11's short-K kernel (short_k.cuh) timed at shapes given on the command line, against its
// model (best_plan.h: predicted_short_k_us), lab 11's `best` and cuBLAS BF16, in one process.
//
//   bench_short_k11 MxNxK [MxNxK ...]
//
// Operands tightly packed (lda = K, ldb = N, ldc = N), so that A's rows are 16-byte aligned when K
// is a multiple of 8 and B's when N is. Per shape: the short-K kernel's GPU time a launch (a CUDA
// graph of R launches, replayed), then the time a call of each of short-K, `best` and cuBLAS from
// the host (R calls between two events), rounds interleaved, medians of 7. The short-K kernel's C
// is checked against cuBLAS's (C poisoned first): relative L2 difference.
// One line a shape: m n k vector_a vector_b model_us graph_us short_us best_us cublas_us rel_l2.
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

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

namespace {

#define CK(call)                                                                                \
  do {                                                                                          \
    cudaError_t e = (call);                                                                     \
    if (e != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MxNxK [MxNxK ...]\n", argv[0]);
    return 1;
  }
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudalabs::CublasHandle cublas;
  const int sms = cudalabs::multiprocessor_count();
  std::mt19937 rng(20261203);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::printf("m n k vector_a vector_b model_us graph_us short_us best_us cublas_us rel_l2\n");
  for (int i = 1; i < argc; ++i) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(argv[i], "%dx%dx%d", &m, &n, &k) != 3 || m < 1 || n < 1 || k < 1) {
      std::fprintf(stderr, "bad shape '%s'\n", argv[i]);
      return 1;
    }
    std::vector<__nv_bfloat16> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n);
    for (auto& x : a) x = __float2bfloat16(uniform(rng));
    for (auto& x : b) x = __float2bfloat16(uniform(rng));
    __nv_bfloat16 *da, *db;
    float *dc, *dref;
    const size_t c_count = static_cast<size_t>(m) * n;
    CK(cudaMalloc(&da, a.size() * 2));
    CK(cudaMalloc(&db, b.size() * 2));
    CK(cudaMalloc(&dc, c_count * 4));
    CK(cudaMalloc(&dref, c_count * 4));
    CK(cudaMemcpyAsync(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice, stream));
    CK(cudaMemcpyAsync(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice, stream));
    cudalabs::Bf16GemmArgs args{m, n, k, 1.0f, da, k, db, n, 0.0f, dc, n};
    cudalabs::Bf16GemmArgs ref_args = args;
    ref_args.c = dref;
    const bool vector_a = cudalabs::rows_allow_16_byte_loads(da, k);
    const bool vector_b = cudalabs::rows_allow_16_byte_loads(db, n);

    // Correctness: poisoned C, the short-K kernel, against cuBLAS.
    CK(cudaMemsetAsync(dc, 0xff, c_count * 4, stream));
    CK(cudaMemsetAsync(dref, 0xff, c_count * 4, stream));
    lab11::run_short_k(args, stream);
    cudalabs::cublas_gemm_bf16_row_major(cublas, ref_args, stream);
    CK(cudaStreamSynchronize(stream));
    std::vector<float> c(c_count), ref(c_count);
    CK(cudaMemcpyAsync(c.data(), dc, c_count * 4, cudaMemcpyDeviceToHost, stream));
    CK(cudaMemcpyAsync(ref.data(), dref, c_count * 4, cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
    double diff = 0, norm = 0;
    for (size_t j = 0; j < c_count; ++j) {
      const double d = static_cast<double>(c[j]) - ref[j];
      diff += d * d;
      norm += static_cast<double>(ref[j]) * ref[j];
    }
    const double rel_l2 = std::isfinite(diff) ? std::sqrt(diff / norm) : INFINITY;

    // Launches a measurement repeats: about a millisecond of the short-K kernel.
    const double one_ms = elapsed_ms(stream, [&] { lab11::run_short_k(args, stream); });
    const int repeats = std::clamp(static_cast<int>(1.0 / std::max(one_ms, 1e-3)), 5, 200);

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int r = 0; r < repeats; ++r) lab11::run_short_k(args, stream);
    CK(cudaStreamEndCapture(stream, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));

    const std::function<void()> runs[] = {[&] { CK(cudaGraphLaunch(exec, stream)); },
                                          [&] {
                                            for (int r = 0; r < repeats; ++r)
                                              lab11::run_short_k(args, stream);
                                          },
                                          [&] {
                                            for (int r = 0; r < repeats; ++r)
                                              lab11::launch_best(args, stream);
                                          },
                                          [&] {
                                            for (int r = 0; r < repeats; ++r)
                                              cudalabs::cublas_gemm_bf16_row_major(cublas, ref_args,
                                                                                   stream);
                                          }};
    std::vector<double> us[4];
    for (int round = 0; round < 9; ++round)
      for (int w = 0; w < 4; ++w) {
        const double ms = elapsed_ms(stream, runs[w]);
        if (round >= 2) us[w].push_back(1e3 * ms / repeats);  // two rounds warm up
      }
    const double model = lab11::predicted_short_k_us({m, n, k}, vector_a, vector_b, sms);
    std::printf("%d %d %d %d %d %.2f %.2f %.2f %.2f %.2f %.2e\n", m, n, k, vector_a, vector_b,
                model, median(us[0]), median(us[1]), median(us[2]), median(us[3]), rel_l2);
    std::fflush(stdout);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dref));
  }
  CK(cudaStreamDestroy(stream));
  return 0;
}
