// Lab 09 grading tests.
// - Each transposed-convolution kernel (naive, branch-free, sub-pixel) on the generator's four
// layers
//   and on odd shapes (rectangular, 1 x 1 inputs, 3 or 1 output channels), with and without a fused
//   epilogue, against the double-precision reference, element by element within the float32 bound.
// - The lowering kernel: I' must equal the CPU-built I' exactly (it is a copy).
// - Every variant of the whole generator on batches of 1, 7 and 64, with the builtin and the
// trained
//   weights, against the CPU reference generator (the per-layer variants with both kinds of layer
//   in turn, methods_under_test).
// - The pipeline (pinned staging, three slots): the same images as the generator run directly, on
//   the fused variant (the core's kernels: branch-free or lowered, whichever this GPU runs faster).
// - Bad arguments, refused with the argument named.
// A kernel that writes nothing is "not implemented yet" (skipped) in the student build, a failure
// in the solution build.
#include "common/cuda_check.h"
#include "common/dcgan_files.h"
#include "common/device_buffer.h"
#include "common/gemm_compare.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_dcgan.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/pipeline.h"
#include "labs/09_dcgan/subpixel.h"
#include "tests/support/expect_rejected.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using dcgan::TconvShape;

const bool kStudentBuild = std::string(CUDALABS_BUILD_NAME) == "student";
using dcgan::kImageFloats;

std::uint64_t seed_for(const std::string& name) {
  return cudalabs::derive_seed(cudalabs::run_seed(), "lab09 " + name);
}
std::string seed_note() {
  return " (CUDALABS_SEED=" + std::to_string(cudalabs::run_seed()) + ")";
}

// ---------------------------------------------------------------- one layer

enum class Tail { kBias, kBatchNormRelu, kTanh };

struct LayerCase {
  std::string name;
  TconvShape shape;
  Tail tail;
};

const std::vector<LayerCase>& layer_cases() {
  static const std::vector<LayerCase> cases = {
      {"layer1_b1", dcgan::generator_layer(1, 1), Tail::kBatchNormRelu},
      {"layer2_b1", dcgan::generator_layer(2, 1), Tail::kBias},
      {"layer3_b1", dcgan::generator_layer(3, 1), Tail::kBatchNormRelu},
      {"layer4_b1", dcgan::generator_layer(4, 1), Tail::kTanh},
      {"layer1_b7", dcgan::generator_layer(1, 7), Tail::kBias},
      {"layer3_b7", dcgan::generator_layer(3, 7), Tail::kBias},
      {"layer4_b7", dcgan::generator_layer(4, 7), Tail::kTanh},
      {"rect_b3_5x3_c8_k4", {3, 5, 3, 8, 4}, Tail::kBatchNormRelu},
      {"one_pixel_b2_1x1_c16_k12", {2, 1, 1, 16, 12}, Tail::kBias},
      {"tall_b1_7x2_c24_k8", {1, 7, 2, 24, 8}, Tail::kTanh},
      {"wide_b2_2x9_c32_k132", {2, 2, 9, 32, 132}, Tail::kBatchNormRelu},  // a partial column tile
      {"rgb_b2_3x6_c8_k3", {2, 3, 6, 8, 3}, Tail::kTanh},
      {"one_channel_b1_4x5_c8_k1", {1, 4, 5, 8, 1}, Tail::kBias},
      {"odd_channels_b2_3x4_c12_k5",
       {2, 3, 4, 12, 5},
       Tail::kBias},  // the sub-pixel kernel refuses it
      // Batches of 128 and more: the sub-pixel GEMM's blocks then hold one pixel position each
      // (b256) or straddle two (b200, b130), and skip the taps outside the image for all their
      // rows.
      {"many_b256_3x5_c16_k64", {256, 3, 5, 16, 64}, Tail::kBatchNormRelu},
      {"many_b200_3x3_c8_k136", {200, 3, 3, 8, 136}, Tail::kBias},
      {"many_b130_2x3_c8_k256", {130, 2, 3, 8, 256}, Tail::kTanh},
  };
  return cases;
}

// Inputs, parameters and the double reference of one case, shared by the kernels.
struct LayerData {
  std::vector<float> input, filter, bias, scale, shift;
  cudalabs::ReferenceValues
      reference;  // after the tail; magnitude bounds every rounding on the way
};

const LayerData& layer_data(const LayerCase& c) {
  static std::map<std::string, std::unique_ptr<LayerData>> cache;
  std::unique_ptr<LayerData>& slot = cache[c.name];
  if (slot) return *slot;
  slot = std::make_unique<LayerData>();
  LayerData& d = *slot;
  const TconvShape& s = c.shape;
  d.input.resize(s.input_elements());
  d.filter.resize(s.filter_elements());
  d.bias.resize(s.out_channels);
  d.scale.resize(s.out_channels);
  d.shift.resize(s.out_channels);
  cudalabs::fill_uniform(d.input, seed_for(c.name + " input"), -1.0f, 1.0f);
  cudalabs::fill_uniform(d.filter, seed_for(c.name + " filter"), -0.05f, 0.05f);
  cudalabs::fill_uniform(d.bias, seed_for(c.name + " bias"), -0.5f, 0.5f);
  cudalabs::fill_uniform(d.scale, seed_for(c.name + " scale"), 0.5f, 1.5f);
  cudalabs::fill_uniform(d.shift, seed_for(c.name + " shift"), -0.5f, 0.5f);
  const std::vector<double> in(d.input.begin(), d.input.end());
  std::vector<double> abs_in(in.size());
  std::vector<float> abs_filter(d.filter.size()), abs_bias(d.bias.size());
  for (std::size_t i = 0; i < in.size(); ++i) abs_in[i] = std::abs(in[i]);
  for (std::size_t i = 0; i < d.filter.size(); ++i) abs_filter[i] = std::abs(d.filter[i]);
  for (std::size_t i = 0; i < d.bias.size(); ++i) abs_bias[i] = std::abs(d.bias[i]);
  const std::vector<float> zero_bias(s.out_channels, 0.0f);
  const bool fused = c.tail == Tail::kBatchNormRelu;
  // The kernels see bias (kBias, kTanh) or scale and shift (kBatchNormRelu, where shift stands for
  // the folded bias and batch norm): the reference applies exactly the same tail.
  std::vector<double> value = dcgan::reference_tconv(s, in, d.filter, fused ? zero_bias : d.bias);
  std::vector<double> magnitude =
      dcgan::reference_tconv(s, abs_in, abs_filter, fused ? zero_bias : abs_bias);
  for (std::size_t e = 0; e < value.size(); ++e) {
    const int k = static_cast<int>(e % s.out_channels);
    if (fused) {
      value[e] = std::max(0.0, value[e] * d.scale[k] + d.shift[k]);
      magnitude[e] = magnitude[e] * std::abs(d.scale[k]) + std::abs(d.shift[k]);
    } else if (c.tail == Tail::kTanh) {
      value[e] = std::tanh(value[e]);  // 1-Lipschitz: the magnitude still bounds the error
    }
  }
  d.reference.m = static_cast<int>(value.size() / s.out_channels);
  d.reference.n = s.out_channels;
  d.reference.value = std::move(value);
  d.reference.magnitude = std::move(magnitude);
  return d;
}

// The packed filter of subpixel.h, built here independently of the generator's packing.
std::vector<float> pack_for_subpixel(const std::vector<float>& filter, int c_in, int k_out) {
  std::vector<float> packed;
  for (int z = 0; z < 4; ++z) {
    const int py = lab09::subpixel::phase_row(z), px = lab09::subpixel::phase_col(z);
    for (int r = 0; r < 5; ++r) {
      if (r % 2 == py) continue;  // phase py uses the filter rows of the other parity
      for (int s = 0; s < 5; ++s) {
        if (s % 2 == px) continue;
        // taps run from the lowest filter index up, as subpixel::filter_index(p, t) does
        for (int c = 0; c < c_in; ++c)
          for (int k = 0; k < k_out; ++k)
            packed.push_back(
                filter[((static_cast<std::size_t>(r) * 5 + s) * k_out + k) * c_in + c]);
      }
    }
  }
  return packed;
}

enum class Kernel { kNaive, kBranchFree, kSubpixel };
const char* kernel_name(Kernel k) {
  return k == Kernel::kNaive ? "naive" : (k == Kernel::kBranchFree ? "branch_free" : "subpixel");
}

bool subpixel_accepts(const TconvShape& s) {
  return s.in_channels % lab09::subpixel::kTileK == 0 &&
         (s.out_channels % 4 == 0 || s.out_channels <= lab09::subpixel::kMaxSmallK);
}

class LayerGradingTest : public ::testing::Test {
 public:
  LayerGradingTest(Kernel kernel, LayerCase layer_case)
      : kernel_(kernel), case_(std::move(layer_case)) {}

  void TestBody() override {
    CUDALABS_REQUIRE_GPU();
    const TconvShape& s = case_.shape;
    const LayerData& d = layer_data(case_);
    const std::vector<float> filter =
        kernel_ == Kernel::kSubpixel ? pack_for_subpixel(d.filter, s.in_channels, s.out_channels)
                                     : d.filter;
    cudalabs::DeviceBuffer<float> input(std::span<const float>{d.input}),
        dev_filter(std::span<const float>{filter});
    cudalabs::DeviceBuffer<float> bias(std::span<const float>{d.bias}),
        scale(std::span<const float>{d.scale}), shift(std::span<const float>{d.shift}),
        output(s.output_elements());
    lab09::TconvArgs args{s, input.data(), dev_filter.data(), output.data(), {}};
    if (case_.tail == Tail::kBatchNormRelu)
      args.epilogue = {scale.data(), shift.data(), lab09::Activation::kRelu};
    if (case_.tail == Tail::kBias) args.epilogue = {nullptr, bias.data(), lab09::Activation::kNone};
    if (case_.tail == Tail::kTanh) args.epilogue = {nullptr, bias.data(), lab09::Activation::kTanh};
    if (kernel_ == Kernel::kSubpixel && !subpixel_accepts(s)) {
      cudalabs::testing::expect_rejected(
          "tconv_subpixel", [&] { lab09::tconv_subpixel(args, nullptr); }, "lab09 tconv_subpixel");
      return;
    }
    cudalabs::poison_device(output.data(), output.bytes());
    if (kernel_ == Kernel::kNaive) lab09::tconv_naive(args, nullptr);
    if (kernel_ == Kernel::kBranchFree) lab09::tconv_branch_free(args, nullptr);
    if (kernel_ == Kernel::kSubpixel) lab09::tconv_subpixel(args, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = output.to_host();
    // The longest dot product a correct kernel may form: every tap of one phase times C, plus the
    // tail.
    const int k = 9 * s.in_channels + 2;
    const cudalabs::GemmComparison comparison =
        cudalabs::compare_gemm(got, s.out_channels, d.reference, k);
    const std::string context =
        std::string(kernel_name(kernel_)) + " on " + case_.name + seed_note();
    if (comparison.nothing_written()) {
      if (kStudentBuild) GTEST_SKIP() << kernel_name(kernel_) << ": not implemented yet";
      FAIL() << context << ": the solution writes nothing";
    }
    EXPECT_TRUE(comparison.passed()) << context << ": " << comparison.describe();
  }

 private:
  Kernel kernel_;
  LayerCase case_;
};

// ---------------------------------------------------------------- lowering

// I' on the CPU, straight from [DCGAN-SHPC] eq. 11: J[y + r][x + s][c], J the zero-inserted padded
// input.
std::vector<float> lowered_on_cpu(const TconvShape& s, const std::vector<float>& input) {
  const int jh = 2 * s.height + 4,
            jw = 2 * s.width + 4;  // 3 before, 1 between, 2 after: 2H - 1 + 5
  std::vector<float> out;
  for (int n = 0; n < s.batch; ++n) {
    std::vector<float> j(static_cast<std::size_t>(jh) * jw * s.in_channels, 0.0f);
    for (int i = 0; i < s.height; ++i)
      for (int w = 0; w < s.width; ++w)
        for (int c = 0; c < s.in_channels; ++c)
          j[((static_cast<std::size_t>(3 + 2 * i) * jw) + 3 + 2 * w) * s.in_channels + c] =
              input[((static_cast<std::size_t>(n) * s.height + i) * s.width + w) * s.in_channels +
                    c];
    for (int y = 0; y < 2 * s.height; ++y)
      for (int x = 0; x < 2 * s.width; ++x)
        for (int r = 0; r < 5; ++r)
          for (int t = 0; t < 5; ++t)
            for (int c = 0; c < s.in_channels; ++c)
              out.push_back(
                  j[((static_cast<std::size_t>(y + r) * jw) + x + t) * s.in_channels + c]);
  }
  return out;
}

class LoweringGradingTest : public ::testing::Test {
 public:
  explicit LoweringGradingTest(LayerCase layer_case) : case_(std::move(layer_case)) {}

  void TestBody() override {
    CUDALABS_REQUIRE_GPU();
    const TconvShape& s = case_.shape;
    std::vector<float> input(s.input_elements());
    cudalabs::fill_uniform(input, seed_for(case_.name + " lowering"), 0.5f,
                           1.5f);  // never 0: zeros must come from J
    const std::vector<float> expected = lowered_on_cpu(s, input);
    cudalabs::DeviceBuffer<float> dev_input(std::span<const float>{input}),
        lowered(expected.size());
    cudalabs::poison_device(lowered.data(), lowered.bytes());
    lab09::lower_tconv_input(s, dev_input.data(), lowered.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = lowered.to_host();
    std::size_t unwritten = 0, wrong = 0, first_wrong = got.size();
    for (std::size_t e = 0; e < got.size(); ++e) {
      if (cudalabs::is_poison(got[e])) {
        ++unwritten;
      } else if (got[e] != expected[e] && ++wrong == 1) {
        first_wrong = e;
      }
    }
    if (unwritten == got.size()) {
      if (kStudentBuild) GTEST_SKIP() << "lower_tconv_input: not implemented yet";
      FAIL() << "the solution's lowering writes nothing";
    }
    const std::size_t columns = 25 * static_cast<std::size_t>(s.in_channels);
    EXPECT_EQ(unwritten, 0u) << case_.name << ": elements never written";
    EXPECT_EQ(wrong, 0u) << case_.name << ": first wrong element at row " << first_wrong / columns
                         << ", column " << first_wrong % columns << seed_note();
  }

 private:
  LayerCase case_;
};

// ---------------------------------------------------------------- the whole generator

const std::string kTrainedWeights = CUDALABS_TRAINED_WEIGHTS;

const dcgan::Weights& weights_named(const std::string& name) {
  static std::map<std::string, dcgan::Weights> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    it = cache
             .emplace(name, name == "builtin" ? dcgan::default_weights(seed_for("weights"))
                                              : dcgan::read_weights(kTrainedWeights))
             .first;
  }
  return it->second;
}

struct GeneratorData {
  std::vector<float> latents;
  std::vector<int> picks;         // images checked against the reference
  std::vector<double> reference;  // their reference images
};

const GeneratorData& generator_data(const std::string& weights, int batch) {
  static std::map<std::pair<std::string, int>, GeneratorData> cache;
  auto [it, fresh] = cache.try_emplace({weights, batch});
  GeneratorData& d = it->second;
  if (!fresh) return d;
  d.latents.resize(static_cast<std::size_t>(batch) * dcgan::kLatent);
  cudalabs::fill_uniform(d.latents, seed_for("latents " + std::to_string(batch)), -1.0f, 1.0f);
  d.picks = batch <= 7 ? std::vector<int>{} : std::vector<int>{0, 21, 42, batch - 1};
  if (batch <= 7) {
    for (int i = 0; i < batch; ++i) d.picks.push_back(i);
  }
  std::vector<float> picked;
  for (int p : d.picks) {
    picked.insert(picked.end(), d.latents.begin() + p * dcgan::kLatent,
                  d.latents.begin() + (p + 1) * dcgan::kLatent);
  }
  d.reference =
      dcgan::reference_generator(weights_named(weights), picked, static_cast<int>(d.picks.size()));
  return d;
}

// A variant's own methods; for a per-layer variant, both kinds in turn (a batched GEMM's layer
// feeds a branch-free one and the other way round), starting with the other kind at batch 7 so that
// each layer meets both. Set rather than measured: a failure then reproduces with the same seed on
// any GPU, and the test's time goes to the student's kernels rather than to timing the candidates
// (through the grader's runner, gigabytes of lowered inputs for each).
std::array<lab09::TconvMethod, 4> methods_under_test(const lab09::DcganVariant& variant,
                                                     int batch) {
  if (!variant.measured_choice) return variant.methods;
  using M = lab09::TconvMethod;
  const bool gemm_first = batch != 7;
  std::array<M, 4> methods{};
  for (int l = 0; l < 4; ++l)
    methods[l] = (l % 2 == 0) == gemm_first ? M::kGemmBatched : M::kBranchFree;
  return methods;
}

class GeneratorGradingTest : public ::testing::Test {
 public:
  GeneratorGradingTest(const lab09::DcganVariant* variant, std::string weights, int batch)
      : variant_(variant), weights_(std::move(weights)), batch_(batch) {}

  void TestBody() override {
    CUDALABS_REQUIRE_GPU();
    if (weights_ == "trained" && !std::filesystem::exists(kTrainedWeights)) {
      FAIL() << "the trained weights are missing: " << kTrainedWeights;
    }
    const GeneratorData& d = generator_data(weights_, batch_);
    lab09::Generator generator(weights_named(weights_), batch_);
    cudalabs::DeviceBuffer<float> latents(std::span<const float>{d.latents});
    cudalabs::DeviceBuffer<float> images(static_cast<std::size_t>(batch_) * kImageFloats);
    const auto methods = methods_under_test(*variant_, batch_);
    generator.poison_activations();
    cudalabs::poison_device(images.data(), images.bytes());
    generator.run(*variant_, methods, latents.data(), batch_, images.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = images.to_host();
    double worst = 0.0;
    std::size_t non_finite = 0;
    for (std::size_t p = 0; p < d.picks.size(); ++p) {
      for (std::size_t e = 0; e < kImageFloats; ++e) {
        const float value = got[static_cast<std::size_t>(d.picks[p]) * kImageFloats + e];
        if (!std::isfinite(value)) {
          ++non_finite;
          continue;
        }
        worst = std::max(worst, std::abs(value - d.reference[p * kImageFloats + e]));
      }
    }
    const std::string context = std::string(variant_->name) + " at batch " +
                                std::to_string(batch_) + " with the " + weights_ + " weights" +
                                seed_note();
    if (non_finite == d.picks.size() * kImageFloats) {
      if (kStudentBuild)
        GTEST_SKIP() << variant_->name << ": not implemented yet (a layer writes nothing)";
      FAIL() << context << ": the solution writes nothing";
    }
    EXPECT_EQ(non_finite, 0u) << context << ": NaN or unwritten values";
    // Five float32 layers against the double reference: errors stay near 1e-5 on [-1, 1] images.
    EXPECT_LE(worst, 2e-4) << context << ": max |gpu - reference| over images";
  }

 private:
  const lab09::DcganVariant* variant_;
  std::string weights_;
  int batch_;
};

// The pipeline's batches (three slots, a short last batch) give the generator's own images. It runs
// the fused variant, the core's last: the pipeline is given code, and the optional challenge's
// sub-pixel kernels are not needed to check it.
class PipelineGradingTest : public ::testing::Test {
 public:
  PipelineGradingTest(int num, int batch) : num_(num), batch_(batch) {}

  void TestBody() override {
    CUDALABS_REQUIRE_GPU();
    const lab09::DcganVariant& variant = lab09::find_variant("fused");
    const dcgan::Weights& weights = weights_named("builtin");
    std::vector<float> latents(static_cast<std::size_t>(num_) * dcgan::kLatent);
    cudalabs::fill_uniform(latents, seed_for("pipeline"), -1.0f, 1.0f);
    lab09::Generator generator(weights, batch_);
    const auto methods = generator.methods_for(variant, batch_, nullptr);
    // A kernel that writes nothing then leaves NaN in the images (the lowered input too).
    generator.poison_activations();
    // Expected: each batch run directly.
    std::vector<float> expected(static_cast<std::size_t>(num_) * kImageFloats);
    cudalabs::DeviceBuffer<float> dev_latents(std::span<const float>{latents}),
        dev_images(static_cast<std::size_t>(batch_) * kImageFloats);
    for (int first = 0; first < num_; first += batch_) {
      const int count = std::min(batch_, num_ - first);
      generator.run(variant, methods,
                    dev_latents.data() + static_cast<std::size_t>(first) * dcgan::kLatent, count,
                    dev_images.data(), nullptr);
      CUDA_CHECK(cudaMemcpy(
          expected.data() + static_cast<std::size_t>(first) * kImageFloats, dev_images.data(),
          static_cast<std::size_t>(count) * kImageFloats * sizeof(float), cudaMemcpyDeviceToHost));
    }
    if (std::isnan(expected[0])) {
      if (kStudentBuild) GTEST_SKIP() << "fused: not implemented yet (a layer writes nothing)";
      FAIL() << "the solution writes nothing";
    }
    lab09::Pipeline pipeline(generator);
    pipeline.set_copy_threads(2);
    std::vector<float> got(expected.size(), std::nanf(""));
    // Each batch is announced once, in order, and only when its images are already in place.
    int next_first = 0;
    std::size_t early = 0;
    const double seconds =
        pipeline.generate(variant, methods, latents, num_, got, [&](int first, int count) {
          EXPECT_EQ(first, next_first);
          EXPECT_EQ(count, std::min(batch_, num_ - first));
          for (std::size_t e = static_cast<std::size_t>(first) * kImageFloats;
               e < static_cast<std::size_t>(first + count) * kImageFloats; ++e) {
            early += got[e] != expected[e];
          }
          next_first = first + count;
        });
    EXPECT_GT(seconds, 0.0);
    EXPECT_EQ(next_first, num_) << "the delivered batches do not cover every image";
    EXPECT_EQ(early, 0u) << "a batch was announced before its images were written";
    std::size_t differ = 0;
    for (std::size_t e = 0; e < got.size(); ++e) differ += got[e] != expected[e];
    EXPECT_EQ(differ, 0u) << num_ << " images in batches of " << batch_
                          << ": values differ from the direct runs";
  }

 private:
  int num_, batch_;
};

// ---------------------------------------------------------------- bad arguments

TEST(Arguments, KernelsRejectBadShapesAndPointers) {
  float dummy[16] = {};
  const lab09::TconvArgs good{{1, 2, 2, 8, 4}, dummy, dummy, dummy, {}};
  using cudalabs::testing::expect_rejected;
  for (auto launch : {&lab09::tconv_naive, &lab09::tconv_branch_free, &lab09::tconv_subpixel}) {
    lab09::TconvArgs args = good;
    args.shape.batch = 0;
    expect_rejected(
        "tconv", [&] { launch(args, nullptr); }, "batch = 0");
    args = good;
    args.shape.in_channels = -3;
    expect_rejected(
        "tconv", [&] { launch(args, nullptr); }, "in_channels = -3");
    args = good;
    args.input = nullptr;
    expect_rejected(
        "tconv", [&] { launch(args, nullptr); }, "must not be null");
  }
  lab09::TconvArgs args = good;
  args.shape.in_channels = 12;
  expect_rejected(
      "tconv_subpixel", [&] { lab09::tconv_subpixel(args, nullptr); }, "in_channels = 12");
  args = good;
  args.shape.out_channels = 6;
  expect_rejected(
      "tconv_subpixel", [&] { lab09::tconv_subpixel(args, nullptr); }, "out_channels = 6");
  args = good;
  args.shape = {1, 2, 2, 1024, 4};  // 25 x 1024 x 4 floats of filter: more than shared memory holds
  expect_rejected(
      "tconv_subpixel", [&] { lab09::tconv_subpixel(args, nullptr); }, "bytes of filter");
  args = good;
  args.input = dummy + 1;  // not 16-byte aligned
  expect_rejected(
      "tconv_subpixel", [&] { lab09::tconv_subpixel(args, nullptr); }, "16-byte aligned");
  expect_rejected(
      "lower_tconv_input",
      [&] {
        lab09::lower_tconv_input({1, 0, 2, 8, 4}, dummy, dummy, nullptr);
      },
      "height = 0");
  expect_rejected(
      "lower_tconv_input",
      [&] {
        lab09::lower_tconv_input({1, 2, 2, 8, 4}, dummy, nullptr, nullptr);
      },
      "must not be null");
  expect_rejected(
      "find_variant", [] { lab09::find_variant("fastest"); }, "unknown variant 'fastest'");
  expect_rejected(
      "Generator", [] { lab09::Generator(dcgan::default_weights(1), 0); }, "--batch = 0");
}

TEST(Arguments, GeneratorRejectsMoreImagesThanItsBatch) {
  CUDALABS_REQUIRE_GPU();
  lab09::Generator generator(weights_named("builtin"), 2);
  cudalabs::DeviceBuffer<float> latents(3 * 100), images(3 * kImageFloats);
  cudalabs::testing::expect_rejected(
      "Generator::run",
      [&] {
        generator.run(lab09::variants()[0], lab09::variants()[0].methods, latents.data(), 3,
                      images.data(), nullptr);
      },
      "count = 3 is outside 1..2");
}

const bool registered = [] {
  for (Kernel kernel : {Kernel::kNaive, Kernel::kBranchFree, Kernel::kSubpixel}) {
    const std::string suite = std::string("Grading.") + kernel_name(kernel);
    for (const LayerCase& c : layer_cases()) {
      ::testing::RegisterTest(
          suite.c_str(), c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
          [kernel, c]() -> ::testing::Test* { return new LayerGradingTest(kernel, c); });
    }
  }
  const LayerCase lowering_cases[] = {{"layer1_b1", dcgan::generator_layer(1, 1), Tail::kBias},
                                      {"layer4_b2", dcgan::generator_layer(4, 2), Tail::kBias},
                                      {"odd_b3_3x5_c3", {3, 3, 5, 3, 1}, Tail::kBias},
                                      {"one_pixel_b2_1x1_c7", {2, 1, 1, 7, 1}, Tail::kBias}};
  for (const LayerCase& c : lowering_cases) {
    ::testing::RegisterTest("Grading.lowering", c.name.c_str(), nullptr, nullptr, __FILE__,
                            __LINE__,
                            [c]() -> ::testing::Test* { return new LoweringGradingTest(c); });
  }
  for (const lab09::DcganVariant& variant : lab09::variants()) {
    const std::string suite = std::string("Grading.generator_") + variant.name;
    for (const std::string weights : {"builtin", "trained"}) {
      for (int batch : {1, 7, 64}) {
        const std::string name = weights + "_b" + std::to_string(batch);
        ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                                [v = &variant, weights, batch]() -> ::testing::Test* {
                                  return new GeneratorGradingTest(v, weights, batch);
                                });
      }
    }
  }
  // num, batch: a short last batch; four batches (a slot reused); one batch.
  const std::tuple<int, int, const char*> pipeline_cases[] = {
      {7, 3, "n7_b3"}, {10, 3, "n10_b3"}, {5, 5, "n5_b5"}};
  for (const auto& [num, batch, name] : pipeline_cases) {
    ::testing::RegisterTest(
        "Grading.pipeline", name, nullptr, nullptr, __FILE__, __LINE__,
        [num, batch]() -> ::testing::Test* { return new PipelineGradingTest(num, batch); });
  }
  return true;
}();

}  // namespace
