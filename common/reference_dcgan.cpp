#include "common/reference_dcgan.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace cudalabs::dcgan {
namespace {

constexpr int kTaps = 5;

void require_size(std::size_t have, std::size_t need, const char* what) {
  if (have < need) {
    throw std::invalid_argument(std::string("reference dcgan: ") + what + " holds " +
                                std::to_string(have) + " values, the shape needs " +
                                std::to_string(need));
  }
}

void check_spans(const TconvShape& shape, std::size_t input, std::size_t filter, std::size_t bias) {
  validate(shape, "reference tconv");
  require_size(input, shape.input_elements(), "the input");
  require_size(filter, shape.filter_elements(), "the filter");
  require_size(bias, static_cast<std::size_t>(shape.out_channels), "the bias");
}

}  // namespace

std::size_t TconvShape::input_elements() const {
  return static_cast<std::size_t>(batch) * height * width * in_channels;
}
std::size_t TconvShape::output_elements() const {
  return static_cast<std::size_t>(batch) * 4 * height * width * out_channels;
}
std::size_t TconvShape::filter_elements() const {
  return static_cast<std::size_t>(kTaps) * kTaps * out_channels * in_channels;
}

double TconvShape::useful_macs() const {
  // Along one axis, output y receives input row (y + 1 - r) / 2 for the r of matching parity that
  // land inside the input: count those (r, y) pairs once per axis, then multiply the two axes.
  auto pairs = [](int size) {
    double count = 0;
    for (int y = 0; y < 2 * size; ++y)
      for (int r = 0; r < kTaps; ++r) {
        const int shifted = y + 1 - r;
        if (shifted % 2 == 0 && shifted >= 0 && shifted / 2 < size) ++count;
      }
    return count;
  };
  return static_cast<double>(batch) * pairs(height) * pairs(width) * in_channels * out_channels;
}

void validate(const TconvShape& shape, const char* who) {
  const std::pair<const char*, int> sizes[] = {{"batch", shape.batch},
                                               {"height", shape.height},
                                               {"width", shape.width},
                                               {"in_channels", shape.in_channels},
                                               {"out_channels", shape.out_channels}};
  for (const auto& [name, value] : sizes) {
    if (value < 1) {
      throw std::invalid_argument(std::string(who) + ": " + name + " = " + std::to_string(value) +
                                  " must be >= 1");
    }
  }
}

std::vector<double> reference_tconv(const TconvShape& shape, std::span<const double> input,
                                    std::span<const float> filter, std::span<const float> bias) {
  check_spans(shape, input.size(), filter.size(), bias.size());
  const int h_in = shape.height, w_in = shape.width, c_in = shape.in_channels,
            k_out = shape.out_channels;
  const int h_out = 2 * h_in, w_out = 2 * w_in;
  std::vector<double> output(shape.output_elements());
#pragma omp parallel for collapse(2) schedule(static)
  for (int n = 0; n < shape.batch; ++n) {
    for (int y = 0; y < h_out; ++y) {
      for (int x = 0; x < w_out; ++x) {
        double* out = &output[((static_cast<std::size_t>(n) * h_out + y) * w_out + x) * k_out];
        for (int k = 0; k < k_out; ++k) out[k] = bias[k];
        for (int r = 0; r < kTaps; ++r) {
          const int row2 = y + 1 - r;  // twice the input row, when even
          if (row2 % 2 != 0 || row2 < 0 || row2 / 2 >= h_in) continue;
          for (int s = 0; s < kTaps; ++s) {
            const int col2 = x + 1 - s;
            if (col2 % 2 != 0 || col2 < 0 || col2 / 2 >= w_in) continue;
            const double* in =
                &input[((static_cast<std::size_t>(n) * h_in + row2 / 2) * w_in + col2 / 2) * c_in];
            const float* taps = &filter[(static_cast<std::size_t>(r) * kTaps + s) * k_out * c_in];
            for (int k = 0; k < k_out; ++k) {
              double sum = 0.0;
              for (int c = 0; c < c_in; ++c)
                sum += in[c] * taps[static_cast<std::size_t>(k) * c_in + c];
              out[k] += sum;
            }
          }
        }
      }
    }
  }
  return output;
}

std::vector<double> reference_tconv_scatter(const TconvShape& shape, std::span<const double> input,
                                            std::span<const float> filter,
                                            std::span<const float> bias) {
  check_spans(shape, input.size(), filter.size(), bias.size());
  const int h_in = shape.height, w_in = shape.width, c_in = shape.in_channels,
            k_out = shape.out_channels;
  const int h_out = 2 * h_in, w_out = 2 * w_in;
  std::vector<double> output(shape.output_elements());
  for (std::size_t e = 0; e < output.size(); ++e) output[e] = bias[e % k_out];
  for (int n = 0; n < shape.batch; ++n)
    for (int i = 0; i < h_in; ++i)
      for (int j = 0; j < w_in; ++j)
        for (int c = 0; c < c_in; ++c) {
          const double value =
              input[((static_cast<std::size_t>(n) * h_in + i) * w_in + j) * c_in + c];
          for (int r = 0; r < kTaps; ++r) {
            const int y = 2 * i - 1 + r;  // the forward convolution's padding before is 1
            if (y < 0 || y >= h_out) continue;
            for (int s = 0; s < kTaps; ++s) {
              const int x = 2 * j - 1 + s;
              if (x < 0 || x >= w_out) continue;
              for (int k = 0; k < k_out; ++k) {
                output[((static_cast<std::size_t>(n) * h_out + y) * w_out + x) * k_out + k] +=
                    value *
                    filter[((static_cast<std::size_t>(r) * kTaps + s) * k_out + k) * c_in + c];
              }
            }
          }
        }
  return output;
}

void reference_batch_norm(std::span<double> values, int channels, std::span<const float> scale,
                          std::span<const float> offset, std::span<const float> mean,
                          std::span<const float> variance, bool relu) {
  if (channels < 1 || values.size() % channels != 0) {
    throw std::invalid_argument("reference batch norm: channels = " + std::to_string(channels) +
                                " does not divide " + std::to_string(values.size()) + " values");
  }
  for (std::span<const float> p : {scale, offset, mean, variance})
    require_size(p.size(), channels, "a batch-norm parameter");
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < static_cast<std::int64_t>(values.size()); ++e) {
    const int c = static_cast<int>(e % channels);
    const double normalised =
        (values[e] - mean[c]) / std::sqrt(static_cast<double>(variance[c]) + kBatchNormEpsilon);
    const double y = scale[c] * normalised + offset[c];
    values[e] = relu && y < 0.0 ? 0.0 : y;
  }
}

std::vector<double> reference_linear(const Weights& weights, std::span<const float> latents,
                                     int count) {
  constexpr int kOut = 4 * 4 * 512;
  if (count < 1)
    throw std::invalid_argument("reference linear: count = " + std::to_string(count) +
                                " must be >= 1");
  require_size(latents.size(), static_cast<std::size_t>(count) * kLatent, "the latent vectors");
  const std::vector<float>& w = weights["linear.weight"];
  const std::vector<float>& b = weights["linear.bias"];
  std::vector<double> out(static_cast<std::size_t>(count) * kOut);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < count; ++n)
    for (int j = 0; j < kOut; ++j) {
      double sum = b[j];
      for (int i = 0; i < kLatent; ++i)
        sum += static_cast<double>(latents[n * kLatent + i]) * w[i * kOut + j];
      out[static_cast<std::size_t>(n) * kOut + j] = sum;
    }
  return out;
}

TconvShape generator_layer(int layer, int batch) {
  if (layer < 1 || layer > 4)
    throw std::invalid_argument("generator layer " + std::to_string(layer) + " is not 1..4");
  const int channels[] = {512, 256, 128, 64, 3};
  const int size = 4 << (layer - 1);
  return {batch, size, size, channels[layer - 1], channels[layer]};
}

std::vector<double> reference_generator(const Weights& weights, std::span<const float> latents,
                                        int count) {
  return reference_generator(weights, latents, count, ComputePrecision::kFp32);
}

std::vector<double> reference_generator(const Weights& weights, std::span<const float> latents,
                                        int count, ComputePrecision precision,
                                        unsigned rounded_layers) {
  // FP32 rounds nothing: the activations stay doubles between layers, the exact reference.
  if (precision == ComputePrecision::kFp32) rounded_layers = 0;
  InputRounding rounding;
  rounding.weight = [precision](int, std::vector<float>& weight) {
    for (float& v : weight) v = round_to_precision(v, precision);
  };
  rounding.input = [precision](int, std::vector<double>& input) {
    for (double& v : input) v = round_to_precision(static_cast<float>(v), precision);
  };
  return reference_generator(weights, latents, count, rounding, rounded_layers);
}

std::vector<double> reference_generator(const Weights& weights, std::span<const float> latents,
                                        int count, const InputRounding& rounding,
                                        unsigned rounded_layers) {
  auto batch_norm = [&weights](std::vector<double>& values, int index, int channels) {
    const std::string p = "bn" + std::to_string(index);
    reference_batch_norm(values, channels, weights[p + ".scale"], weights[p + ".offset"],
                         weights[p + ".mean"], weights[p + ".variance"], true);
  };
  auto rounds_layer = [&](int layer) { return (rounded_layers >> layer & 1u) != 0; };
  // The linear layer's weight and the filters as the products see them.
  Weights inputs = weights;
  const auto& specs = generator_tensors();
  for (std::size_t t = 0; t < specs.size(); ++t) {
    const std::string& name = specs[t].name;
    const int layer = name == "linear.weight"     ? 0
                      : name.ends_with(".filter") ? name[5] - '0'  // "tconvL.filter"
                                                  : -1;
    if (layer >= 0 && rounds_layer(layer)) rounding.weight(layer, inputs.tensors[t]);
  }
  std::vector<float> z(latents.begin(), latents.end());
  if (rounds_layer(0)) {
    std::vector<double> exact(z.begin(), z.end());
    rounding.input(0, exact);
    z.assign(exact.begin(), exact.end());
  }
  std::vector<double> x = reference_linear(inputs, z, count);
  batch_norm(x, 0, 512);
  for (int layer = 1; layer <= 4; ++layer) {
    const TconvShape shape = generator_layer(layer, count);
    const std::string name = "tconv" + std::to_string(layer);
    if (rounds_layer(layer)) rounding.input(layer, x);
    x = reference_tconv(shape, x, inputs[name + ".filter"], inputs[name + ".bias"]);
    if (layer < 4) {
      batch_norm(x, layer, shape.out_channels);
    } else {
      for (double& v : x) v = std::tanh(v);
    }
  }
  return x;
}

}  // namespace cudalabs::dcgan
