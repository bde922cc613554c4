/// @file reference_dcgan.h
/// @brief The CPU reference of the DCGAN generator (labs 09 and 10): every layer in double, OpenMP.
///
/// Activations are H x W x C per image, images one after another (dcgan_model.h documents the
/// layouts and the transposed convolution's exact sum). Layers take and return doubles, so the
/// whole generator runs without float rounding: the GPU's float32 result is compared against it.
#pragma once

#include "common/compute_precision.h"
#include "common/dcgan_model.h"

#include <functional>
#include <span>
#include <vector>

namespace cudalabs::dcgan {

/// The sizes of one 5 x 5, stride-2 'SAME' transposed convolution: `batch` images of
/// height x width x in_channels in, 2 height x 2 width x out_channels out.
struct TconvShape {
  int batch = 1;         ///< images
  int height = 4;        ///< input rows (the output has twice as many)
  int width = 4;         ///< input columns (the output has twice as many)
  int in_channels = 1;   ///< C
  int out_channels = 1;  ///< K
  /// Elements of the input: batch x H x W x C.
  std::size_t input_elements() const;
  /// Elements of the output: batch x 2H x 2W x K.
  std::size_t output_elements() const;
  /// Elements of the filter: 5 x 5 x K x C.
  std::size_t filter_elements() const;
  /// Multiply-adds that touch a real input pixel (the inserted zeros skipped): 2 x this is the
  /// layer's useful FLOP count, whatever a kernel actually executes.
  double useful_macs() const;
};

/// Throws std::invalid_argument naming the first size below 1.
void validate(const TconvShape& shape, const char* who);

/// The layer's output, double-accumulated: the direct 'gather' sum of dcgan_model.h, bias included.
std::vector<double> reference_tconv(const TconvShape& shape, std::span<const double> input,
                                    std::span<const float> filter, std::span<const float> bias);

/// The same layer computed the other way round, for tests: every input pixel scatters its
/// contribution into the outputs y = 2 i - 1 + r (TensorFlow's definition as the gradient of a
/// stride-2 'SAME' convolution). Sequential and slow; an independent formulation.
std::vector<double> reference_tconv_scatter(const TconvShape& shape, std::span<const double> input,
                                            std::span<const float> filter,
                                            std::span<const float> bias);

/// Inference-form batch norm over the last dimension (channels), optionally followed by ReLU, in
/// place.
void reference_batch_norm(std::span<double> values, int channels, std::span<const float> scale,
                          std::span<const float> offset, std::span<const float> mean,
                          std::span<const float> variance, bool relu);

/// z (count x 100) -> count x 8192 (4 x 4 x 512, HWC): the linear layer with its bias.
std::vector<double> reference_linear(const Weights& weights, std::span<const float> latents,
                                     int count);

/// The whole generator: count latent vectors -> count images of 64 x 64 x 3 (HWC), values in [-1,
/// 1].
std::vector<double> reference_generator(const Weights& weights, std::span<const float> latents,
                                        int count);

/// Every GEMM-shaped layer of the generator as a bit mask: the linear layer (bit 0) and the four
/// transposed convolutions (bits 1 to 4).
inline constexpr unsigned kAllGeneratorLayers = 0x1Fu;

/// The generator as a GPU computes it when its GEMM-shaped layers run at `precision`: the inputs of
/// the linear layer and of every transposed convolution (the latents or the activations, and the
/// weights; not the biases) rounded as round_to_precision() says, everything else exact (sums,
/// batch norm, tanh). With BF16 that is also what storing the activations between layers in BF16
/// gives. ComputePrecision::kFp32 is reference_generator(weights, latents, count) itself.
/// `rounded_layers` limits the rounding to some layers, one bit each: bit 0 the linear layer, bit
/// L the transposed convolution L (1 to 4); all of them by default.
std::vector<double> reference_generator(const Weights& weights, std::span<const float> latents,
                                        int count, ComputePrecision precision,
                                        unsigned rounded_layers = kAllGeneratorLayers);

/// How the generator's GEMM-shaped layers see their inputs, for emulating a GPU's rounding of them:
/// `weight` rounds layer L's weight in place (the linear layer's [100][8192], or transposed
/// convolution L's filter [5][5][K][C]), `input` rounds its input in place (the latents, or the
/// activations transposed convolution L reads); the sums, batch norm and tanh stay exact.
struct InputRounding {
  std::function<void(int layer, std::vector<float>& weight)> weight;  ///< rounds layer L's weight
  std::function<void(int layer, std::vector<double>& input)> input;   ///< rounds layer L's input
};

/// The generator with the inputs of the layers in `rounded_layers` (bits as above) rounded as
/// `rounding` says; the precision overload above is this with round_to_precision().
std::vector<double> reference_generator(const Weights& weights, std::span<const float> latents,
                                        int count, const InputRounding& rounding,
                                        unsigned rounded_layers = kAllGeneratorLayers);

/// The four transposed convolutions of the generator (layer 1..4) at a batch size.
TconvShape generator_layer(int layer, int batch);

}  // namespace cudalabs::dcgan
