#include "common/dcgan_inputs.h"

#include "common/cli.h"
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

Latents load_latents(const std::string& input, int num, std::uint64_t seed,
                     std::string& description) {
  if (!input.empty()) {
    description = input;
    return read_latents(input);
  }
  Latents latents{num, std::vector<float>(static_cast<std::size_t>(num) * kLatent)};
  fill_uniform(latents.values, derive_seed(seed, "latents"), -1.0f, 1.0f);
  description = std::to_string(num) + " uniform in [-1, 1), seed " + std::to_string(seed);
  return latents;
}

void add_input_flags(CLI::App& app, InputFlags& flags) {
  app.add_option(
         "--weights", flags.weights,
         "Weights: a .cldw file, 'trained' (the committed Fashion-MNIST generator), 'builtin' "
         "(DCGAN "
         "initialisation from --weights-seed) or 'default' (trained if present, else builtin)")
      ->type_name("FILE|trained|builtin|default");
  add_integer_flag(app, "--weights-seed", flags.weights_seed, 0, 1 << 30,
                   "Seed of the builtin weights");
  app.add_option("--input", flags.input,
                 "Latent vectors: a .cldz file (instead of --num random ones)")
      ->type_name("FILE");
  add_integer_flag(app, "--num", flags.num, 1, 1 << 20,
                   "Images to generate from random latent vectors");
  app.add_option("--seed", flags.seed_text,
                 "Seed of the random latent vectors (default: CUDALABS_SEED or fresh)")
      ->type_name("SEED");
}

std::uint64_t check_input_flags(const CLI::App& app, const InputFlags& flags) {
  if (!flags.input.empty() && app.count("--num") > 0) {
    throw FlagError("--num: give either --num or --input '" + flags.input + "', not both");
  }
  return flags.seed_text.empty() ? run_seed()
                                 : static_cast<std::uint64_t>(
                                       parse_integer_flag("--seed", flags.seed_text, 0, 1LL << 62));
}

}  // namespace cudalabs::dcgan
