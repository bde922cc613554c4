// The generator's layer sequence on the GPU, shared by the student's and the solution's build: it
// uploads the weights, derives what each variant needs from them once, and calls the lab's kernels
// (kernels.cu) and the lab 07 GEMM layer by layer. The small per-element kernels (bias, batch norm,
// ReLU, tanh) are [DCGAN-SHPC] §2.2's one-thread-per-element loops; they are given, not taught.
#include "labs/09_dcgan/generator.h"

#include "common/cuda_check.h"
#include "common/device_info.h"
#include "common/event_timer.h"
#include "common/launch_utils.h"
#include "common/poison.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/09_dcgan/epilogue.cuh"
#include "labs/09_dcgan/subpixel.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace lab09 {

namespace {

// The GEMM the layers are lowered onto: lab 07's `best`, whose kernels are lab 07's optional
// challenge; on the student's own lab 07 (EARLIER_LABS=student), the core's last step, which every
// student who finished lab 07's core has written.
void lowered_gemm(const cudalabs::GemmArgs& gemm, cudaStream_t stream) {
#if CUDALABS_EARLIER_LABS_OWN
  static const cudalabs::GemmVariant& core = []() -> const cudalabs::GemmVariant& {
    for (const cudalabs::GemmVariant& variant : lab07::variants())
      if (std::string(variant.name) == "async_128x256") return variant;
    throw std::logic_error("lab 07 lists no variant async_128x256");
  }();
  core.launch(gemm, stream);
#else
  lab07::best_gemm(gemm, stream);
#endif
}

}  // namespace

namespace {

using cudalabs::dcgan::TconvShape;
using cudalabs::dcgan::Weights;
constexpr int kLinearOut = 4 * 4 * 512;
constexpr int kThreads = 256;

std::span<const float> span_of(const std::vector<float>& v) {
  return v;
}

// ---- Per-element kernels ----

// The same per-channel tail the convolution kernels apply in their own pass (epilogue.cuh).
__global__ void epilogue_kernel(float* values, long long count, int channels, Epilogue epilogue) {
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    values[e] = apply_epilogue(epilogue, values[e], static_cast<int>(e % channels));
  }
}

__global__ void batch_norm_kernel(float* values, long long count, int channels, const float* scale,
                                  const float* offset, const float* mean, const float* variance) {
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int c = static_cast<int>(e % channels);
    values[e] = scale[c] * (values[e] - mean[c]) *
                    rsqrtf(variance[c] + cudalabs::dcgan::kBatchNormEpsilon) +
                offset[c];
  }
}

int elementwise_blocks(long long count) {
  return static_cast<int>(std::min<long long>((count + kThreads - 1) / kThreads, 65535LL * 8));
}

void run_epilogue(float* values, long long count, int channels, const Epilogue& epilogue,
                  cudaStream_t stream) {
  epilogue_kernel<<<elementwise_blocks(count), kThreads, 0, stream>>>(values, count, channels,
                                                                      epilogue);
  CUDA_CHECK_LAUNCH("lab09 epilogue_kernel");
}

// An activation alone is the epilogue with scale 1 and shift 0.
void apply_activation(float* values, long long count, Activation activation, cudaStream_t stream) {
  run_epilogue(values, count, 1, {nullptr, nullptr, activation}, stream);
}

// ---- Weights derived at load time ----

// W' of [DCGAN-SHPC] eqs. 5-6: row (r * 5 + s) * C + c, column k = filter[4 - r][4 - s][k][c].
std::vector<float> lowered_weights(const std::vector<float>& filter, int c_in, int k_out) {
  std::vector<float> out(filter.size());
  for (int r = 0; r < 5; ++r)
    for (int s = 0; s < 5; ++s)
      for (int c = 0; c < c_in; ++c)
        for (int k = 0; k < k_out; ++k) {
          out[(static_cast<std::size_t>(r * 5 + s) * c_in + c) * k_out + k] =
              filter[((static_cast<std::size_t>(4 - r) * 5 + (4 - s)) * k_out + k) * c_in + c];
        }
  return out;
}

}  // namespace

// The sub-pixel packed filter (subpixel.h).
std::vector<float> packed_filter(const std::vector<float>& filter, int c_in, int k_out) {
  std::vector<float> out(filter.size());  // 9 + 6 + 6 + 4 = 25 taps: exactly the filter's size
  for (int z = 0; z < 4; ++z) {
    const int py = subpixel::phase_row(z), px = subpixel::phase_col(z);
    float* phase = out.data() + subpixel::phase_start(z, c_in, k_out);
    for (int ty = 0; ty < subpixel::taps(py); ++ty)
      for (int tx = 0; tx < subpixel::taps(px); ++tx)
        for (int c = 0; c < c_in; ++c)
          for (int k = 0; k < k_out; ++k) {
            const int r = subpixel::filter_index(py, ty), s = subpixel::filter_index(px, tx);
            phase[((static_cast<std::size_t>(ty) * subpixel::taps(px) + tx) * c_in + c) * k_out +
                  k] = filter[((static_cast<std::size_t>(r) * 5 + s) * k_out + k) * c_in + c];
          }
  }
  return out;
}

// bn(x + bias) = x * a + shift with a = scale / sqrt(variance + eps), shift = (bias - mean) * a +
// offset.
void fold_batch_norm(const std::vector<float>& bias, const std::vector<float>& scale,
                     const std::vector<float>& offset, const std::vector<float>& mean,
                     const std::vector<float>& variance, std::vector<float>& a,
                     std::vector<float>& shift) {
  const std::size_t channels = scale.size();
  a.resize(bias.size());
  shift.resize(bias.size());
  for (std::size_t j = 0; j < bias.size(); ++j) {
    const std::size_t c = j % channels;  // the linear layer: j = (h * 4 + w) * 512 + c
    const double factor =
        scale[c] / std::sqrt(static_cast<double>(variance[c]) + cudalabs::dcgan::kBatchNormEpsilon);
    a[j] = static_cast<float>(factor);
    shift[j] = static_cast<float>((static_cast<double>(bias[j]) - mean[c]) * factor + offset[c]);
  }
}

std::array<double, 5> layer_flops(int batch) {
  std::array<double, 5> flops{2.0 * batch * cudalabs::dcgan::kLatent * kLinearOut};
  for (int layer = 1; layer <= 4; ++layer)
    flops[layer] = 2.0 * cudalabs::dcgan::generator_layer(layer, batch).useful_macs();
  return flops;
}

std::size_t Generator::device_bytes(int max_batch) {
  // Two activation buffers of the largest layer (32 x 32 x 64 per image), the lowered chunk, the
  // weights.
  return (2 * static_cast<std::size_t>(max_batch) * 32 * 32 * 64 + kLoweredFloats +
          4 * (5u << 20)) *
         sizeof(float);
}

Generator::Generator(const Weights& weights, int max_batch) : max_batch_(max_batch) {
  if (max_batch < 1)
    throw std::invalid_argument("--batch = " + std::to_string(max_batch) + " must be >= 1");
  cudalabs::require_device_memory(device_bytes(max_batch), "--batch " + std::to_string(max_batch));
  linear_weight_ = cudalabs::DeviceBuffer<float>(span_of(weights["linear.weight"]));
  linear_bias_ = cudalabs::DeviceBuffer<float>(span_of(weights["linear.bias"]));
  bn0_scale_ = cudalabs::DeviceBuffer<float>(span_of(weights["bn0.scale"]));
  bn0_offset_ = cudalabs::DeviceBuffer<float>(span_of(weights["bn0.offset"]));
  bn0_mean_ = cudalabs::DeviceBuffer<float>(span_of(weights["bn0.mean"]));
  bn0_variance_ = cudalabs::DeviceBuffer<float>(span_of(weights["bn0.variance"]));
  std::vector<float> a, shift;
  fold_batch_norm(weights["linear.bias"], weights["bn0.scale"], weights["bn0.offset"],
                  weights["bn0.mean"], weights["bn0.variance"], a, shift);
  linear_fused_scale_ = cudalabs::DeviceBuffer<float>(span_of(a));
  linear_fused_shift_ = cudalabs::DeviceBuffer<float>(span_of(shift));
  for (int l = 1; l <= 4; ++l) {
    const TconvShape shape = cudalabs::dcgan::generator_layer(l, 1);
    const std::string t = "tconv" + std::to_string(l), b = "bn" + std::to_string(l);
    const std::vector<float>& filter = weights[t + ".filter"];
    Layer& layer = layers_[l];
    layer.filter = cudalabs::DeviceBuffer<float>(span_of(filter));
    layer.lowered_weights = cudalabs::DeviceBuffer<float>(
        span_of(lowered_weights(filter, shape.in_channels, shape.out_channels)));
    layer.packed = cudalabs::DeviceBuffer<float>(
        span_of(packed_filter(filter, shape.in_channels, shape.out_channels)));
    layer.bias = cudalabs::DeviceBuffer<float>(span_of(weights[t + ".bias"]));
    if (l < 4) {
      layer.bn_scale = cudalabs::DeviceBuffer<float>(span_of(weights[b + ".scale"]));
      layer.bn_offset = cudalabs::DeviceBuffer<float>(span_of(weights[b + ".offset"]));
      layer.bn_mean = cudalabs::DeviceBuffer<float>(span_of(weights[b + ".mean"]));
      layer.bn_variance = cudalabs::DeviceBuffer<float>(span_of(weights[b + ".variance"]));
      fold_batch_norm(weights[t + ".bias"], weights[b + ".scale"], weights[b + ".offset"],
                      weights[b + ".mean"], weights[b + ".variance"], a, shift);
      layer.fused_scale = cudalabs::DeviceBuffer<float>(span_of(a));
      layer.fused_shift = cudalabs::DeviceBuffer<float>(span_of(shift));
    }
  }
  ping_ = cudalabs::DeviceBuffer<float>(static_cast<std::size_t>(max_batch) * 32 * 32 * 64);
  pong_ = cudalabs::DeviceBuffer<float>(static_cast<std::size_t>(max_batch) * 32 * 32 * 64);
  lowered_ = cudalabs::DeviceBuffer<float>(kLoweredFloats);
}

void Generator::poison_activations() {
  cudalabs::poison_device(ping_.data(), ping_.bytes());
  cudalabs::poison_device(pong_.data(), pong_.bytes());
  cudalabs::poison_device(lowered_.data(), lowered_.bytes());
  if (precision_layers_) precision_layers_->poison_activations();
}

void Generator::use_precision_layers(std::unique_ptr<PrecisionLayers> layers) {
  precision_layers_ = std::move(layers);
}

void Generator::linear_layer(bool fused, const float* latents, int count, float* out,
                             cudaStream_t stream) {
  cudalabs::GemmArgs gemm;
  gemm.m = count;
  gemm.n = kLinearOut;
  gemm.k = cudalabs::dcgan::kLatent;
  gemm.a = latents;
  gemm.lda = cudalabs::dcgan::kLatent;
  gemm.b = linear_weight_.data();
  gemm.ldb = kLinearOut;
  gemm.c = out;
  gemm.ldc = kLinearOut;
  lowered_gemm(gemm, stream);
  const long long values = static_cast<long long>(count) * kLinearOut;
  if (fused) {
    run_epilogue(out, values, kLinearOut,
                 {linear_fused_scale_.data(), linear_fused_shift_.data(), Activation::kRelu},
                 stream);
    return;
  }
  run_epilogue(out, values, kLinearOut, {nullptr, linear_bias_.data(), Activation::kNone}, stream);
  batch_norm_kernel<<<elementwise_blocks(values), kThreads, 0, stream>>>(
      out, values, 512, bn0_scale_.data(), bn0_offset_.data(), bn0_mean_.data(),
      bn0_variance_.data());
  CUDA_CHECK_LAUNCH("lab09 batch_norm_kernel");
  apply_activation(out, values, Activation::kRelu, stream);
}

void Generator::tconv_layer(int l, TconvMethod method, bool fused, const float* in, int count,
                            float* out, cudaStream_t stream) {
  const Layer& layer = layers_[l];
  const TconvShape shape = cudalabs::dcgan::generator_layer(l, count);
  const bool last = l == 4;
  const long long values = static_cast<long long>(shape.output_elements());
  // What the layer's own pass applies: everything when fused, only the bias otherwise.
  Epilogue epilogue{nullptr, layer.bias.data(), Activation::kNone};
  if (fused) {
    epilogue =
        last ? Epilogue{nullptr, layer.bias.data(), Activation::kTanh}
             : Epilogue{layer.fused_scale.data(), layer.fused_shift.data(), Activation::kRelu};
  }

  switch (method) {
    case TconvMethod::kNaive:
    case TconvMethod::kBranchFree:
    case TconvMethod::kSubpixel: {
      const TconvArgs args{
          shape, in, method == TconvMethod::kSubpixel ? layer.packed.data() : layer.filter.data(),
          out, epilogue};
      if (method == TconvMethod::kNaive) tconv_naive(args, stream);
      if (method == TconvMethod::kBranchFree) tconv_branch_free(args, stream);
      if (method == TconvMethod::kSubpixel) tconv_subpixel(args, stream);
      break;
    }
    case TconvMethod::kGemm:
    case TconvMethod::kGemmBatched: {
      // O' = I' W' (eq. 14), I' built chunk by chunk: one image per GEMM (kGemm), or as many images
      // as the lowered buffer holds stacked into one tall GEMM (kGemmBatched, §2.3.3).
      const int rows_per_image = 4 * shape.height * shape.width;
      const int columns = 25 * shape.in_channels;
      const std::size_t per_image = static_cast<std::size_t>(rows_per_image) * columns;
      const int chunk = method == TconvMethod::kGemm
                            ? 1
                            : std::max(1, static_cast<int>(kLoweredFloats / per_image));
      if (per_image > kLoweredFloats)
        throw std::logic_error("lab09: one lowered image exceeds the lowered buffer");
      for (int first = 0; first < count; first += chunk) {
        const int images = std::min(chunk, count - first);
        TconvShape part = shape;
        part.batch = images;
        lower_tconv_input(
            part,
            in + static_cast<std::size_t>(first) * shape.height * shape.width * shape.in_channels,
            lowered_.data(), stream);
        cudalabs::GemmArgs gemm;
        gemm.m = images * rows_per_image;
        gemm.n = shape.out_channels;
        gemm.k = columns;
        gemm.a = lowered_.data();
        gemm.lda = columns;
        gemm.b = layer.lowered_weights.data();
        gemm.ldb = shape.out_channels;
        gemm.c = out + static_cast<std::size_t>(first) * rows_per_image * shape.out_channels;
        gemm.ldc = shape.out_channels;
        lowered_gemm(gemm, stream);
      }
      run_epilogue(out, values, shape.out_channels, epilogue, stream);
      break;
    }
  }
  if (fused) return;
  if (last) {
    apply_activation(out, values, Activation::kTanh, stream);
    return;
  }
  batch_norm_kernel<<<elementwise_blocks(values), kThreads, 0, stream>>>(
      out, values, shape.out_channels, layer.bn_scale.data(), layer.bn_offset.data(),
      layer.bn_mean.data(), layer.bn_variance.data());
  CUDA_CHECK_LAUNCH("lab09 batch_norm_kernel");
  apply_activation(out, values, Activation::kRelu, stream);
}

void Generator::run(const DcganVariant& variant, const std::array<TconvMethod, 4>& methods,
                    const float* latents, int count, float* images, cudaStream_t stream,
                    LayerTimes* times, const std::array<cudaEvent_t, 6>* marks) {
  if (count < 1 || count > max_batch_) {
    throw std::invalid_argument("lab09 generator: count = " + std::to_string(count) +
                                " is outside 1.." + std::to_string(max_batch_) +
                                " (the batch it was built for)");
  }
  std::array<cudalabs::EventTimer, 5> timers;
  // Before layer l (and l = 5 after the last): stop the previous layer's timer, start this one's.
  const auto boundary = [&](int l) {
    if (times && l > 0) timers[l - 1].stop(stream);
    if (times && l < 5) timers[l].start(stream);
    if (marks) CUDA_CHECK(cudaEventRecord((*marks)[l], stream));
  };
  if (variant.precision != cudalabs::ComputePrecision::kFp32) {
    if (!precision_layers_ || precision_layers_->precision() != variant.precision)
      throw std::invalid_argument(std::string("lab09 generator: variant ") + variant.name +
                                  " needs layers in " +
                                  cudalabs::precision_name(variant.precision) +
                                  " (lab 11's tensor cores), and none were given");
    precision_layers_->run(latents, count, images, stream, boundary);
  } else {
    boundary(0);
    linear_layer(variant.fused, latents, count, ping_.data(), stream);
    float* in = ping_.data();
    float* out = pong_.data();
    for (int l = 1; l <= 4; ++l) {
      boundary(l);
      tconv_layer(l, methods[l - 1], variant.fused, in, count, l == 4 ? images : out, stream);
      std::swap(in, out);
    }
    boundary(5);
  }
  if (times) {
    for (int l = 0; l < 5; ++l) (*times)[l] = timers[l].elapsed_ms();
  }
}

std::array<TconvMethod, 4> Generator::choose_per_layer(int batch, bool fused, cudaStream_t stream,
                                                       std::string* report) {
  // Time each candidate on the layer's real input size (activations' contents do not change the
  // time).
  batch = std::min(batch, max_batch_);
  std::array<TconvMethod, 4> chosen{};
  std::ostringstream text;
  cudalabs::EventTimer timer;
  for (int l = 1; l <= 4; ++l) {
    double best_ms = 0.0;
    for (TconvMethod candidate : {TconvMethod::kBranchFree, TconvMethod::kGemmBatched}) {
      std::vector<float> ms;
      for (int repeat = 0; repeat < 4; ++repeat) {
        timer.start(stream);
        tconv_layer(l, candidate, fused, ping_.data(), batch, pong_.data(), stream);
        timer.stop(stream);
        ms.push_back(timer.elapsed_ms());
      }
      std::sort(ms.begin() + 1, ms.end());  // the first run warms up
      const double median = ms[2];
      text << (candidate == TconvMethod::kBranchFree ? " tconv" + std::to_string(l) + ": " : ", ")
           << method_name(candidate) << " " << median << " ms";
      if (candidate == TconvMethod::kBranchFree || median < best_ms) {
        best_ms = median;
        chosen[l - 1] = candidate;
      }
    }
    text << " -> " << method_name(chosen[l - 1]) << ";";
  }
  if (report) *report = "per-layer choice at batch " + std::to_string(batch) + ":" + text.str();
  return chosen;
}

std::array<TconvMethod, 4> Generator::methods_for(const DcganVariant& variant, int batch,
                                                  cudaStream_t stream, std::string* report) {
  if (!variant.measured_choice) return variant.methods;
  for (const auto& [key, methods] : measured_) {
    if (key == std::make_pair(batch, variant.fused)) return methods;
  }
  std::array<TconvMethod, 4> methods = choose_per_layer(batch, variant.fused, stream, report);
  measured_.push_back({{batch, variant.fused}, methods});
  return methods;
}

// ---- The variants ----

namespace {
using M = TconvMethod;
constexpr DcganVariant kVariants[] = {
    {"naive",
     "one thread per output, all 25 taps with a branch ([DCGAN-SHPC] 2.2)",
     {M::kNaive, M::kNaive, M::kNaive, M::kNaive},
     false,
     false},
    {"branch_free",
     "one thread per output, taps of the right parity only (2.2.1)",
     {M::kBranchFree, M::kBranchFree, M::kBranchFree, M::kBranchFree},
     false,
     false},
    {"gemm",
     "lowered input I' times W' with the lab 07 GEMM, one image per GEMM (2.3.1)",
     {M::kGemm, M::kGemm, M::kGemm, M::kGemm},
     false,
     false},
    {"gemm_batched",
     "the lowered GEMM over many images at once (2.3.3)",
     {M::kGemmBatched, M::kGemmBatched, M::kGemmBatched, M::kGemmBatched},
     false,
     false},
    {"per_layer",
     "branch-free or batched GEMM per layer, whichever this GPU runs faster (2.4)",
     {M::kBranchFree, M::kBranchFree, M::kBranchFree, M::kBranchFree},
     false,
     true},
    {"fused",
     "per_layer with bias, batch norm and ReLU folded into one pass per layer",
     {M::kBranchFree, M::kBranchFree, M::kBranchFree, M::kBranchFree},
     true,
     true},
    {"subpixel",
     "four phase convolutions per layer as implicit GEMMs: no zero multiplied, fused tails (2.3 "
     "redone)",
     {M::kSubpixel, M::kSubpixel, M::kSubpixel, M::kSubpixel},
     true,
     false},
};
}  // namespace

std::span<const DcganVariant> variants() {
  return kVariants;
}

const DcganVariant& find_variant(const std::string& name) {
  std::string names;
  for (const DcganVariant& variant : kVariants) {
    if (name == variant.name) return variant;
    names += std::string(names.empty() ? "" : ", ") + variant.name;
  }
  throw std::invalid_argument("--variant: unknown variant '" + name + "' (expected one of " +
                              names + ")");
}

const char* method_name(TconvMethod method) {
  switch (method) {
    case TconvMethod::kNaive:
      return "naive";
    case TconvMethod::kBranchFree:
      return "branch_free";
    case TconvMethod::kGemm:
      return "gemm";
    case TconvMethod::kGemmBatched:
      return "gemm_batched";
    case TconvMethod::kSubpixel:
      return "subpixel";
  }
  return "?";
}

}  // namespace lab09
