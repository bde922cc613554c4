/// @file labs/09_dcgan/generator.h
/// @brief The generator on the GPU: its weights on the device, its activations, and the layer
/// sequence that calls the student's kernels (the same code for the student and the solution).
#pragma once

#include "common/dcgan_model.h"
#include "common/device_buffer.h"
#include "labs/09_dcgan/lab.h"

#include <cuda_runtime.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lab09 {

/// Times of one run, per layer: [0] linear + batch norm + ReLU, [1..4] transposed convolution N
/// with what follows it (batch norm + ReLU, or tanh).
using LayerTimes = std::array<float, 5>;

/// Useful FLOPs of each layer for `batch` images (zeros skipped), the same for every variant.
std::array<double, 5> layer_flops(int batch);

/// The sub-pixel packed filter (subpixel.h) of a [5][5][K][C] filter.
std::vector<float> packed_filter(const std::vector<float>& filter, int c_in, int k_out);

/// Batch norm folded into the layer's tail: bn(x + bias) = x * a + shift with a = scale /
/// sqrt(variance + eps) and shift = (bias - mean) * a + offset; a and shift get bias.size()
/// entries (the linear layer's 8192, whose channel is j % 512).
void fold_batch_norm(const std::vector<float>& bias, const std::vector<float>& scale,
                     const std::vector<float>& offset, const std::vector<float>& mean,
                     const std::vector<float>& variance, std::vector<float>& a,
                     std::vector<float>& shift);

/// The generator's layers at a reduced precision (lab 11 builds them on tensor cores): FP32
/// latents in, FP32 images out, like Generator::run. A Generator given one runs it for every
/// variant whose precision it has.
class PrecisionLayers {
 public:
  virtual ~PrecisionLayers() = default;
  /// The precision its layers compute in.
  virtual cudalabs::ComputePrecision precision() const = 0;
  /// Runs `count` latents (device, count x 100) into `images` (device, count x 64 x 64 x 3) on
  /// `stream`, calling boundary(l) on the host as layer l (0 linear, 1..4 transposed
  /// convolutions) is enqueued, and boundary(5) after the last.
  virtual void run(const float* latents, int count, float* images, cudaStream_t stream,
                   const std::function<void(int)>& boundary) = 0;
  /// Fills its activation buffers with NaN (Generator::poison_activations).
  virtual void poison_activations() = 0;
};

/// What a program hands a generator to run a reduced precision (lab 11's tensor cores): the
/// variant that selects it and how to make its layers. Empty (no `make`): FP32 only.
struct PrecisionBackend {
  const DcganVariant* variant = nullptr;  ///< the variant Generator::run takes for these layers
  /// Builds the layers for `weights` and batches of up to `max_batch` images on the current GPU.
  std::function<std::unique_ptr<PrecisionLayers>(const cudalabs::dcgan::Weights& weights,
                                                 int max_batch)>
      make;
};

/// Weights uploaded once, plus what the variants derive from them at load time:
/// - W' of [DCGAN-SHPC] eqs. 5-6 per layer (25 C x K, rows (r * 5 + s) * C + c = filter[4 - r][4 -
/// s][k][c]);
/// - the sub-pixel packed filters (subpixel.h);
/// - batch norm folded for the fused variants: a = scale / sqrt(variance + eps) and
///   shift = (bias - mean) * a + offset, so that bn(x + bias) = x * a + shift; for the linear
///   layer, whose bias is per output j (8192), scale and shift are expanded to 8192 entries.
class Generator {
 public:
  /// Uploads `weights` and allocates activations for batches of up to `max_batch` images.
  /// Throws std::invalid_argument for max_batch < 1 and std::runtime_error (naming --batch and the
  /// bytes) when they do not fit in device memory.
  Generator(const cudalabs::dcgan::Weights& weights, int max_batch);

  /// Runs `count` (1..max_batch) latent vectors at `latents` (device, count x 100) through the
  /// generator, writing count x 64 x 64 x 3 values to `images` (device). When `times` is given,
  /// the stream is synchronised and each layer's time (CUDA events) stored there. When `marks` is
  /// given, its events are recorded on the stream before each layer and after the last (no
  /// synchronisation: the pipeline's timeline reads them later).
  void run(const DcganVariant& variant, const std::array<TconvMethod, 4>& methods,
           const float* latents, int count, float* images, cudaStream_t stream,
           LayerTimes* times = nullptr, const std::array<cudaEvent_t, 6>* marks = nullptr);

  /// [DCGAN-SHPC] §2.4, measured rather than assumed: for each transposed convolution, times the
  /// branch-free kernel and the batched GEMM at `batch` images on this GPU and keeps the faster.
  std::array<TconvMethod, 4> choose_per_layer(int batch, bool fused, cudaStream_t stream,
                                              std::string* report);

  /// The methods a variant runs at `batch`: its own, or measured ones when it asks (cached per
  /// batch).
  std::array<TconvMethod, 4> methods_for(const DcganVariant& variant, int batch,
                                         cudaStream_t stream, std::string* report = nullptr);

  /// Runs the variants of `layers`'s precision with them from now on (run() throws for a
  /// variant of a precision no layers were given for).
  void use_precision_layers(std::unique_ptr<PrecisionLayers> layers);

  /// The largest batch run() accepts.
  int max_batch() const { return max_batch_; }

  /// Fills the activation buffers with NaN, so that a layer that writes nothing shows as NaN in the
  /// images instead of passing on an earlier run's values.
  void poison_activations();

  /// Device bytes a generator for `max_batch` images allocates (to check before allocating).
  static std::size_t device_bytes(int max_batch);

 private:
  void linear_layer(bool fused, const float* latents, int count, float* out, cudaStream_t stream);
  void tconv_layer(int layer, TconvMethod method, bool fused, const float* in, int count,
                   float* out, cudaStream_t stream);

  struct Layer {
    cudalabs::DeviceBuffer<float> filter, lowered_weights, packed, bias;
    cudalabs::DeviceBuffer<float> bn_scale, bn_offset, bn_mean, bn_variance;  // empty for layer 4
    cudalabs::DeviceBuffer<float> fused_scale, fused_shift;
  };
  int max_batch_;
  cudalabs::DeviceBuffer<float> linear_weight_, linear_bias_, linear_fused_scale_,
      linear_fused_shift_;
  cudalabs::DeviceBuffer<float> bn0_scale_, bn0_offset_, bn0_mean_, bn0_variance_;
  std::array<Layer, 5> layers_;  // [1..4]
  cudalabs::DeviceBuffer<float> ping_, pong_, lowered_;
  std::vector<std::pair<std::pair<int, bool>, std::array<TconvMethod, 4>>> measured_;
  std::unique_ptr<PrecisionLayers> precision_layers_;
};

/// Floats of the lowered-input buffer the GEMM variants work through (chunks of images): 64 Mi
/// floats.
inline constexpr std::size_t kLoweredFloats = std::size_t{64} << 20;

}  // namespace lab09
