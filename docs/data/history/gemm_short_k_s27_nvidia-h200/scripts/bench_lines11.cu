// Lab 11's warp-specialized kernel with its operands as they are, A copied onto 128-byte lines, B,
// and both (launch.cuh: OnLines), at the width and slices `best` plans, against `best` and cuBLAS
// BF16, in one process, at shapes given on the command line (tightly packed: lda = K, ldb = N).
//
//   bench_lines11 MxNxK [MxNxK ...]
//
// Per shape: each call's result checked against cuBLAS (C poisoned first; the worst relative L2
// difference printed), then the time a call from the host (R calls between two events), rounds
// interleaved, medians of 7.
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
  std::mt19937 rng(20261203);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::printf(
      "m n k width slices a_on b_on predicted_us as_is_us a_lines_us b_lines_us both_us best_us "
      "cublas_us worst_rel_l2\n");
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
    const lab11::SpecializedPlan plan = lab11::planned_best(args.shape());
    const auto forced = [&](lab11::OnLines lines) {
      switch (plan.width) {
        case 64:
          return lab11::run_specialized<64>(args, plan.slices, stream, lines);
        case 128:
          return lab11::run_specialized<128>(args, plan.slices, stream, lines);
        default:
          return lab11::run_specialized<256>(args, plan.slices, stream, lines);
      }
    };
    const std::function<void()> calls[] = {
        [&] {
          forced({false, false});
        },
        [&] {
          forced({true, false});
        },
        [&] {
          forced({false, true});
        },
        [&] {
          forced({true, true});
        },
        [&] { lab11::launch_best(args, stream); },
        [&] { cudalabs::cublas_gemm_bf16_row_major(cublas, ref_args, stream); }};
    CK(cudaMemsetAsync(dref, 0xff, c_count * 4, stream));
    cudalabs::cublas_gemm_bf16_row_major(cublas, ref_args, stream);
    std::vector<float> c(c_count), ref(c_count);
    CK(cudaMemcpyAsync(ref.data(), dref, c_count * 4, cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
    double worst = 0;
    for (int w = 0; w < 5; ++w) {  // each of ours, C poisoned first, against cuBLAS
      CK(cudaMemsetAsync(dc, 0xff, c_count * 4, stream));
      calls[w]();
      CK(cudaMemcpyAsync(c.data(), dc, c_count * 4, cudaMemcpyDeviceToHost, stream));
      CK(cudaStreamSynchronize(stream));
      double diff = 0, norm = 0;
      for (size_t j = 0; j < c_count; ++j) {
        const double d = static_cast<double>(c[j]) - ref[j];
        diff += d * d;
        norm += static_cast<double>(ref[j]) * ref[j];
      }
      worst = std::max(worst, std::isfinite(diff) ? std::sqrt(diff / norm) : INFINITY);
    }
    const double one_ms = elapsed_ms(stream, calls[0]);
    const int repeats = std::clamp(static_cast<int>(2.0 / std::max(one_ms, 1e-3)), 3, 200);
    std::vector<double> us[6];
    for (int round = 0; round < 9; ++round)
      for (int w = 0; w < 6; ++w) {
        const double ms = elapsed_ms(stream, [&] {
          for (int r = 0; r < repeats; ++r) calls[w]();
        });
        if (round >= 2) us[w].push_back(1e3 * ms / repeats);  // two rounds warm up
      }
    const bool a_on = lab11::rows_on_lines(da, k), b_on = lab11::rows_on_lines(db, n);
    std::printf("%d %d %d %d %d %d %d %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.2e\n", m, n, k,
                plan.width, plan.slices, a_on, b_on, plan.predicted_us, median(us[0]),
                median(us[1]), median(us[2]), median(us[3]), median(us[4]), median(us[5]), worst);
    std::fflush(stdout);
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dref));
  }
  CK(cudaStreamDestroy(stream));
  return 0;
}
