// Writes the fuzzers' seed inputs: a valid latent file and the first bytes of valid float32 and
// float16 weights files (libFuzzer explores inputs of a few KiB; the headers are what it must
// reach).
//   write_seeds WEIGHTS_DIR LATENTS_DIR
#include "common/dcgan_files.h"

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: write_seeds WEIGHTS_DIR LATENTS_DIR\n");
    return 2;
  }
  using namespace cudalabs::dcgan;
  const Weights weights = default_weights(1);
  for (Precision precision : {Precision::kFloat32, Precision::kFloat16}) {
    std::vector<std::byte> bytes = serialize_weights(weights, precision);
    bytes.resize(4096);
    write_file_bytes(
        std::string(argv[1]) + "/prefix" + std::to_string(static_cast<int>(precision)) + ".cldw",
        bytes);
  }
  Latents latents{2, std::vector<float>(2 * kLatent, 0.5f)};
  write_file_bytes(std::string(argv[2]) + "/two.cldz", serialize_latents(latents));
  return 0;
}
