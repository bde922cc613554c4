// flash_wgmma_ws_fma's exponential on the FMA units (fused_softmax.cuh's exp2_fma) against 2^x in
// double: the relative error its comment states, over the range the softmax feeds it (the scores
// less the row's maximum, up to the lazy rescale's lag above it), and the flush below 2^-126.
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/poison.h"
#include "solutions/13_attention/fused_softmax.cuh"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <vector>

namespace lab13 {
namespace {

__global__ void exp2_fma_kernel(const float* x, float* y, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = exp2_fma(x[i]);
}

std::vector<float> exp2_fma_on_gpu(const std::vector<float>& x) {
  cudalabs::DeviceBuffer<float> in{std::span<const float>(x)}, out(x.size());
  cudalabs::poison_device(out.data(), out.bytes());
  const int count = static_cast<int>(x.size());
  exp2_fma_kernel<<<(count + 255) / 256, 256>>>(in.data(), out.data(), count);
  CUDA_CHECK_LAUNCH("exp2_fma_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  return out.to_host();
}

TEST(Exp2Fma, RelativeErrorUnderTwoToTheMinus12Point5) {
  CUDALABS_REQUIRE_GPU();
  std::vector<float> x;
  // Every x from -126 to 8 in steps of 1/1024 plus each step's odd offset (not only grid points).
  for (int i = -126 * 1024; i <= 8 * 1024; ++i) x.push_back(i / 1024.0f + 0.000173f * (i % 7));
  const std::vector<float> y = exp2_fma_on_gpu(x);
  double worst = 0.0;
  float worst_x = 0.0f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] < -126.0f) continue;
    const double exact = std::exp2(static_cast<double>(x[i]));
    const double error = std::abs(y[i] / exact - 1.0);
    if (!(error <= worst)) {  // a NaN is the worst
      worst = error;
      worst_x = x[i];
    }
  }
  EXPECT_LT(worst, std::exp2(-12.5)) << "at x = " << worst_x;
  EXPECT_GT(worst, std::exp2(-20.0))
      << "a polynomial of degree 3 cannot be this close: is exp2_fma "
         "still the emulation?";
}

TEST(Exp2Fma, FlushesBelowTwoToTheMinus126AndMaskedScoresToZero) {
  CUDALABS_REQUIRE_GPU();
  const std::vector<float> x = {-126.5f, -150.0f, -1e30f, -INFINITY};
  for (const float y : exp2_fma_on_gpu(x)) EXPECT_EQ(y, 0.0f);
}

}  // namespace
}  // namespace lab13
