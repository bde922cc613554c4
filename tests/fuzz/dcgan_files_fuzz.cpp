// libFuzzer target for the DCGAN file readers (common/dcgan_files.h). Built by scripts/fuzz with
// clang's -fsanitize=fuzzer,address,undefined: any crash, leak, out-of-bounds read or undefined
// behaviour on any input is a failure; a FileFormatError is the expected answer to a bad file.
// CUDALABS_FUZZ_LATENTS selects the latent-file reader, else the weights reader.
#include "common/dcgan_files.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
#ifdef CUDALABS_FUZZ_LATENTS
    const cudalabs::dcgan::Latents latents = cudalabs::dcgan::parse_latents(bytes, "fuzz input");
    if (latents.values.size() != static_cast<std::size_t>(latents.count) * cudalabs::dcgan::kLatent)
      __builtin_trap();
#else
    const cudalabs::dcgan::Weights weights = cudalabs::dcgan::parse_weights(bytes, "fuzz input");
    if (weights.tensors.size() != cudalabs::dcgan::generator_tensors().size()) __builtin_trap();
#endif
  } catch (const cudalabs::FileFormatError&) {
  }
  return 0;
}
