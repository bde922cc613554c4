// Lab 11's DCGAN: the linear layer with its bias, batch norm and ReLU (linear_bn_relu, given code,
// TF32 tensor cores in three products) against a double-precision sum on the CPU, element by
// element: odd batches (a partial block of rows), depths from 1 to 128 (K padded to 8), widths of
// one and several column tiles, more tiles than the grid has blocks (a block's run of tiles crosses
// into the next row of tiles), BF16 and TF32 outputs; the latents start one float into their
// buffer, the weight at its start or one float in (4-byte copies), and the rows past the batch stay
// poisoned. Sizes it does not take are refused by name.
#include "common/device_buffer.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "labs/11_tensor_cores/dcgan_layers.h"
#include "tests/support/expect_rejected.h"
#include "tests/support/gpu_test.h"

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct LinearCase {
  std::string name;
  int count, depth, outputs;
  bool bf16;
  int weight_offset = 0;  // floats into the weight's buffer
};

class LinearLayerTest : public ::testing::TestWithParam<LinearCase> {};

std::uint64_t seed_for(const std::string& name) {
  return cudalabs::derive_seed(cudalabs::run_seed(), "lab11 linear " + name);
}

template <class T>
std::vector<float> run_linear(const LinearCase& c, const std::vector<float>& latents,
                              const std::vector<float>& weight, const std::vector<float>& scale,
                              const std::vector<float>& shift, int extra_rows) {
  std::vector<float> shifted(latents.size() + 1, 0.0f);
  std::copy(latents.begin(), latents.end(), shifted.begin() + 1);
  std::vector<float> offset_weight(weight.size() + c.weight_offset, 0.0f);
  std::copy(weight.begin(), weight.end(), offset_weight.begin() + c.weight_offset);
  cudalabs::DeviceBuffer<float> d_latents{std::span<const float>(shifted)},
      d_weight{std::span<const float>(offset_weight)}, d_scale{std::span<const float>(scale)},
      d_shift{std::span<const float>(shift)};
  const std::size_t elements = static_cast<std::size_t>(c.count + extra_rows) * c.outputs;
  cudalabs::DeviceBuffer<T> d_out(elements);
  cudalabs::poison_device(d_out.data(), d_out.bytes());
  lab11::linear_bn_relu(d_latents.data() + 1, c.count, c.depth, d_weight.data() + c.weight_offset,
                        c.outputs, d_scale.data(), d_shift.data(), d_out.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> out = d_out.to_host();
  std::vector<float> values(elements);
  for (std::size_t e = 0; e < elements; ++e) {
    if constexpr (sizeof(T) == 2) {
      std::uint16_t bits;
      std::memcpy(&bits, &out[e], 2);
      values[e] = bits == 0xFFFF ? NAN : __bfloat162float(out[e]);
    } else {
      values[e] = cudalabs::is_poison(out[e]) ? NAN : out[e];
    }
  }
  return values;
}

TEST_P(LinearLayerTest, MatchesADoubleSum) {
  CUDALABS_REQUIRE_GPU();
  const LinearCase& c = GetParam();
  std::vector<float> latents(static_cast<std::size_t>(c.count) * c.depth),
      weight(static_cast<std::size_t>(c.depth) * c.outputs), scale(c.outputs), shift(c.outputs);
  cudalabs::fill_uniform(latents, seed_for(c.name + " latents"), -1.0f, 1.0f);
  cudalabs::fill_uniform(weight, seed_for(c.name + " weight"), -0.3f, 0.3f);
  cudalabs::fill_uniform(scale, seed_for(c.name + " scale"), 0.5f, 2.0f);
  cudalabs::fill_uniform(shift, seed_for(c.name + " shift"), -0.5f, 0.5f);
  constexpr int kExtraRows = 3;
  const std::vector<float> got =
      c.bf16 ? run_linear<__nv_bfloat16>(c, latents, weight, scale, shift, kExtraRows)
             : run_linear<float>(c, latents, weight, scale, shift, kExtraRows);
  std::size_t wrong = 0, unwritten = 0, overwritten = 0, positive = 0;
  double worst = 0.0;
  for (int r = 0; r < c.count + kExtraRows; ++r) {
    for (int o = 0; o < c.outputs; ++o) {
      const float value = got[static_cast<std::size_t>(r) * c.outputs + o];
      if (r >= c.count) {
        overwritten += std::isnan(value) ? 0 : 1;
        continue;
      }
      if (std::isnan(value)) {
        ++unwritten;
        continue;
      }
      double sum = 0.0, magnitude = 0.0;
      for (int k = 0; k < c.depth; ++k) {
        const double product =
            static_cast<double>(latents[static_cast<std::size_t>(r) * c.depth + k]) *
            weight[static_cast<std::size_t>(k) * c.outputs + o];
        sum += product;
        magnitude += std::abs(product);
      }
      const double expected = std::max(0.0, sum * scale[o] + shift[o]);
      positive += expected > 0.0 ? 1 : 0;
      // The result's rounding (BF16 2^-9, 2^-8 allowed; TF32 2^-11, 2^-10 allowed) and the sums'
      // (the three products leave about 2^-21 of each term's size; FP32's order, less).
      const double allowed =
          std::ldexp(std::abs(expected), c.bf16 ? -8 : -10) + 1e-6 * magnitude * scale[o] + 1e-7;
      const double error = std::abs(value - expected);
      worst = std::max(worst, error / allowed);
      wrong += error > allowed ? 1 : 0;
    }
  }
  EXPECT_EQ(unwritten, 0u);
  EXPECT_EQ(overwritten, 0u) << "rows past the batch were written";
  EXPECT_EQ(wrong, 0u) << "worst error / bound " << worst;
  EXPECT_GT(positive, static_cast<std::size_t>(c.count) * c.outputs / 4) << "ReLU left too few";
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, LinearLayerTest,
    ::testing::Values(LinearCase{"b1_k100_o128_bf16", 1, 100, 128, true},
                      LinearCase{"b131_k100_o8192_bf16", 131, 100, 8192, true},
                      LinearCase{"b300_k37_o384_bf16", 300, 37, 384, true},
                      LinearCase{"b129_k128_o256_tf32", 129, 128, 256, false},
                      LinearCase{"b257_k1_o128_tf32", 257, 1, 128, false},
                      LinearCase{"b131_k100_o8192_tf32", 131, 100, 8192, false},
                      LinearCase{"b2000_k100_o4096_bf16_runs_cross_rows", 2000, 100, 4096, true},
                      LinearCase{"b700_k37_o1280_tf32_weight_4_byte_aligned", 700, 37, 1280, false,
                                 1}),
    [](const ::testing::TestParamInfo<LinearCase>& info) { return info.param.name; });

TEST(LinearLayerArguments, RefusesSizesItDoesNotTake) {
  using cudalabs::testing::expect_rejected;
  const auto call = [](int count, int depth, int outputs) {
    alignas(16) static float scale[2], shift[2];
    alignas(16) static __nv_bfloat16 out[2];
    lab11::linear_bn_relu(nullptr, count, depth, nullptr, outputs, scale, shift, out, nullptr);
  };
  expect_rejected(
      "linear_bn_relu", [&] { call(0, 100, 128); }, "count = 0");
  expect_rejected(
      "linear_bn_relu", [&] { call(4, 129, 128); }, "depth = 129");
  expect_rejected(
      "linear_bn_relu", [&] { call(4, 0, 128); }, "depth = 0");
  expect_rejected(
      "linear_bn_relu", [&] { call(4, 100, 200); }, "outputs = 200");
  // Pairs of outputs and of scale and shift are stored and read whole: one element off is refused.
  expect_rejected(
      "linear_bn_relu",
      [] {
        alignas(16) static float scale[4], shift[4];
        alignas(16) static __nv_bfloat16 out[4];
        lab11::linear_bn_relu(nullptr, 4, 100, nullptr, 128, scale, shift, out + 1, nullptr);
      },
      "out two elements");
  expect_rejected(
      "linear_bn_relu",
      [] {
        alignas(16) static float scale[4], shift[4];
        alignas(16) static float out[4];
        lab11::linear_bn_relu(nullptr, 4, 100, nullptr, 128, scale + 1, shift, out, nullptr);
      },
      "8-byte aligned");
}

}  // namespace
