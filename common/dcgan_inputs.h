/// @file dcgan_inputs.h
/// @brief What the DCGAN drivers (labs 09 and 10) generate from: the weights a --weights choice
/// names, and the latent vectors of --input or --num/--seed.
#pragma once

#include "common/dcgan_files.h"
#include "common/dcgan_model.h"

#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace cudalabs::dcgan {

/// The weights `choice` names: a .cldw path, "trained" (the file at `trained_path`), "builtin"
/// (DCGAN initialisation from `builtin_seed`) or "default" (trained when that file exists, else
/// builtin). `description` receives one line saying which. Throws what read_weights throws for a
/// bad file.
Weights load_weights(const std::string& choice, int builtin_seed, const std::string& trained_path,
                     std::string& description);

/// The latent vectors of file `input` (.cldz) when it is not empty, else `num` vectors uniform in
/// [-1, 1) from `seed`. `description` receives one line saying which.
Latents load_latents(const std::string& input, int num, std::uint64_t seed,
                     std::string& description);

/// What every DCGAN driver generates from, as flags: --weights, --weights-seed, --input, --num,
/// --seed.
struct InputFlags {
  std::string weights = "default";  ///< load_weights' choice
  int weights_seed = 1;             ///< seed of the builtin weights
  std::string input;                ///< a .cldz file, or empty for --num random vectors
  int num = 64;                     ///< random latent vectors when there is no --input
  std::string seed_text;            ///< --seed as given (empty: CUDALABS_SEED or fresh)
};

/// Registers the InputFlags on `app`.
void add_input_flags(CLI::App& app, InputFlags& flags);

/// After parsing: refuses --num together with --input (FlagError naming both), and returns the seed
/// of the random latent vectors (--seed, else CUDALABS_SEED, else fresh).
std::uint64_t check_input_flags(const CLI::App& app, const InputFlags& flags);

}  // namespace cudalabs::dcgan
