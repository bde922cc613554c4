#include "common/dcgan_model.h"

#include "common/random_fill.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace cudalabs::dcgan {

std::size_t TensorSpec::elements() const {
  return std::accumulate(shape.begin(), shape.end(), std::size_t{1},
                         [](std::size_t a, std::uint32_t b) { return a * b; });
}

const std::vector<TensorSpec>& generator_tensors() {
  static const std::vector<TensorSpec> tensors = [] {
    std::vector<TensorSpec> list;
    auto batch_norm = [&list](const std::string& prefix, std::uint32_t channels) {
      for (const char* part : {"scale", "offset", "mean", "variance"})
        list.push_back({prefix + "." + part, {channels}});
    };
    list.push_back({"linear.weight", {kLatent, 4 * 4 * 512}});
    list.push_back({"linear.bias", {4 * 4 * 512}});
    batch_norm("bn0", 512);
    const std::uint32_t channels[] = {512, 256, 128, 64, 3};
    for (int layer = 1; layer <= 4; ++layer) {
      const std::string name = "tconv" + std::to_string(layer);
      list.push_back({name + ".filter", {5, 5, channels[layer], channels[layer - 1]}});
      list.push_back({name + ".bias", {channels[layer]}});
      if (layer < 4) batch_norm("bn" + std::to_string(layer), channels[layer]);
    }
    return list;
  }();
  return tensors;
}

const std::vector<float>& Weights::operator[](const std::string& name) const {
  const std::vector<TensorSpec>& specs = generator_tensors();
  for (std::size_t i = 0; i < specs.size() && i < tensors.size(); ++i) {
    if (specs[i].name == name) return tensors[i];
  }
  throw std::invalid_argument("dcgan weights: no tensor named '" + name + "'");
}

namespace {

// Normal deviates by Box-Muller from the suite's uniform generator (reproducible on every
// platform).
void fill_normal(std::vector<float>& values, std::uint64_t seed, float mean, float deviation) {
  std::vector<float> uniform(values.size() * 2);
  fill_uniform(uniform, seed, 0.0f, 1.0f);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double u1 = 1.0 - uniform[2 * i];  // in (0, 1]: the logarithm stays finite
    const double u2 = uniform[2 * i + 1];
    values[i] = static_cast<float>(mean + deviation * std::sqrt(-2.0 * std::log(u1)) *
                                              std::cos(2.0 * M_PI * u2));
  }
}

}  // namespace

Weights default_weights(std::uint64_t seed) {
  Weights weights;
  for (const TensorSpec& spec : generator_tensors()) {
    std::vector<float> values(spec.elements(), 0.0f);
    const std::uint64_t tensor_seed = derive_seed(seed, spec.name);
    const std::string& n = spec.name;
    if (n.ends_with(".weight") || n.ends_with(".filter")) {
      fill_normal(values, tensor_seed, 0.0f, 0.02f);
    } else if (n.ends_with(".scale")) {
      fill_normal(values, tensor_seed, 1.0f, 0.02f);
    } else if (n.ends_with(".mean")) {
      fill_uniform(values, tensor_seed, -0.05f, 0.05f);
    } else if (n.ends_with(".variance")) {
      fill_uniform(values, tensor_seed, 0.9f, 1.1f);
    }  // biases and offsets stay 0
    weights.tensors.push_back(std::move(values));
  }
  return weights;
}

}  // namespace cudalabs::dcgan
