#include "common/dcgan_inputs.h"

#include "common/random_fill.h"

#include <filesystem>

namespace cudalabs::dcgan {

Weights load_weights(const std::string& choice, int builtin_seed, const std::string& trained_path,
                     std::string& description) {
  std::string picked = choice;
  if (picked == "default") picked = std::filesystem::exists(trained_path) ? "trained" : "builtin";
  if (picked == "builtin") {
    description = "builtin (DCGAN initialisation, seed " + std::to_string(builtin_seed) + ")";
    return default_weights(static_cast<std::uint64_t>(builtin_seed));
  }
  const std::string path = picked == "trained" ? trained_path : picked;
  description = path + (picked == "trained" ? " (trained on Fashion-MNIST)" : "");
  return read_weights(path);
}

Latents load_latents(const std::string& input, int num, std::uint64_t seed, std::string& description) {
  if (!input.empty()) {
    description = input;
    return read_latents(input);
  }
  Latents latents{num, std::vector<float>(static_cast<std::size_t>(num) * kLatent)};
  fill_uniform(latents.values, derive_seed(seed, "latents"), -1.0f, 1.0f);
  description = std::to_string(num) + " uniform in [-1, 1), seed " + std::to_string(seed);
  return latents;
}

}  // namespace cudalabs::dcgan
