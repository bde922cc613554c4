// Experiment: the RGB layer's builds side by side, batch 5248, interleaved, medians; each build's
// images checked against build 0's.
#include <cuda_bf16.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>
#include "common/cuda_check.h"
#include "common/reference_dcgan.h"
using cudalabs::dcgan::TconvShape;
namespace lab11 {
#define DECL(i)                                                                                  \
  void rgb_bf16_##i(const TconvShape&, const __nv_bfloat16*, const float*, const float*, float*, \
                    cudaStream_t);                                                               \
  void rgb_tf32_##i(const TconvShape&, const float*, const float*, const float*, float*,         \
                    cudaStream_t);
DECL(0) DECL(2) DECL(4)
}  // namespace lab11
#define ENTRY(i) \
  { lab11::rgb_bf16_##i, lab11::rgb_tf32_##i }
struct Variant {
  void (*bf16)(const TconvShape&, const __nv_bfloat16*, const float*, const float*, float*,
               cudaStream_t);
  void (*tf32)(const TconvShape&, const float*, const float*, const float*, float*, cudaStream_t);
};
int main(int argc, char** argv) {
  const int count = 3;
  Variant v[] = {ENTRY(0), ENTRY(2), ENTRY(4)};
  const char* names[] = {"old (one warp, filter in registers)", "padded (call 3)",
                         "padded, folded index, 168 regs"};
  const TconvShape shape{5248, 32, 32, 64, 3};
  const size_t in_n = size_t{5248} * 32 * 32 * 64, out_n = size_t{5248} * 64 * 64 * 3,
               f_n = 25 * 64 * 3;
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> u(0.0f, 1.0f), w(-0.05f, 0.05f);
  std::vector<float> hin(in_n), hf(f_n), hb(3);
  for (auto& x : hin) x = u(rng);
  for (auto& x : hf) x = w(rng);
  for (auto& x : hb) x = w(rng);
  std::vector<__nv_bfloat16> hin16(in_n);
  for (size_t i = 0; i < in_n; ++i) hin16[i] = __float2bfloat16(hin[i]);
  float *din, *df, *db, *dout, *dref;
  __nv_bfloat16* din16;
  CUDA_CHECK(cudaMalloc(&din, in_n * 4));
  CUDA_CHECK(cudaMalloc(&din16, in_n * 2));
  CUDA_CHECK(cudaMalloc(&df, f_n * 4));
  CUDA_CHECK(cudaMalloc(&db, 12));
  CUDA_CHECK(cudaMalloc(&dout, out_n * 4));
  CUDA_CHECK(cudaMalloc(&dref, out_n * 4));
  CUDA_CHECK(cudaMemcpy(din, hin.data(), in_n * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(din16, hin16.data(), in_n * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(df, hf.data(), f_n * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, hb.data(), 12, cudaMemcpyHostToDevice));
  if (argc > 1 && std::string(argv[1]) == "profile") {  // one launch of each type, variant 2
    v[2].bf16(shape, din16, df, db, dout, 0);
    v[2].tf32(shape, din, df, db, dout, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    return 0;
  }
  std::vector<float> ref(out_n), got(out_n);
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < count; ++i) {
      CUDA_CHECK(cudaMemset(dout, 0xff, out_n * 4));  // NaN
      if (p == 0)
        v[i].bf16(shape, din16, df, db, dout, 0);
      else
        v[i].tf32(shape, din, df, db, dout, 0);
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(got.data(), dout, out_n * 4, cudaMemcpyDeviceToHost));
      if (i == 0) ref = got;
      double worst = 0;
      size_t bad = 0;
      for (size_t e = 0; e < out_n; ++e) {
        const double d = std::fabs(double(got[e]) - ref[e]);
        if (!(d <= 1e-4)) ++bad;
        if (d > worst || d != d) worst = d;
      }
      printf("check %s %-28s max|diff| %.3g  bad %zu %s\n", p ? "tf32" : "bf16", names[i], worst,
             bad, bad ? "FAIL" : "ok");
    }
  }
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  const int rounds = 15, reps = 10;
  for (int p = 0; p < 2; ++p) {
    std::vector<std::vector<float>> t(count);
    for (int r = 0; r < rounds + 1; ++r)
      for (int k = 0; k < count; ++k) {
        const int i = (k + r) % count;
        CUDA_CHECK(cudaEventRecord(e0));
        for (int j = 0; j < reps; ++j)
          if (p == 0)
            v[i].bf16(shape, din16, df, db, dout, 0);
          else
            v[i].tf32(shape, din, df, db, dout, 0);
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0) t[i].push_back(ms / reps);
      }
    for (int i = 0; i < count; ++i) {
      std::sort(t[i].begin(), t[i].end());
      printf("time %s %-28s median %.4f ms  min %.4f  max %.4f\n", p ? "tf32" : "bf16", names[i],
             t[i][rounds / 2], t[i][0], t[i].back());
    }
  }
  return 0;
}
