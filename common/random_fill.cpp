#include "common/random_fill.h"

#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

namespace cudalabs {

namespace {

// SplitMix64 (splitmix64_at, one draw after another): a tiny, well-mixed generator whose output is
// fully specified, unlike std::uniform_real_distribution, whose results differ between standard
// libraries.
std::uint64_t splitmix64(std::uint64_t& state) {
  const std::uint64_t draw = splitmix64_at(state, 0);
  state += 0x9E3779B97F4A7C15ull;
  return draw;
}

}  // namespace

void fill_uniform(std::span<float> values, std::uint64_t seed, float lo, float hi) {
  if (!(lo < hi)) {
    throw std::invalid_argument("fill_uniform: lo = " + std::to_string(lo) +
                                " must be below hi = " + std::to_string(hi));
  }
  // Each value depends on its index alone: the threads' shares do not change a bit of the result.
  const std::int64_t count = static_cast<std::int64_t>(values.size());
#pragma omp parallel for schedule(static) if (count > (std::int64_t{1} << 16))
  for (std::int64_t i = 0; i < count; ++i) {
    values[static_cast<std::size_t>(i)] = uniform_at(seed, static_cast<std::uint64_t>(i), lo, hi);
  }
}

std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view check_name) {
  // FNV-1a over the name, mixed with the run seed.
  std::uint64_t hash = 0xCBF29CE484222325ull;
  for (const char c : check_name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ull;
  }
  std::uint64_t state = run_seed ^ hash;
  return splitmix64(state);
}

std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    if (const char* text = std::getenv("CUDALABS_SEED"); text != nullptr && *text != '\0') {
      char* end = nullptr;
      const unsigned long long parsed = std::strtoull(text, &end, 10);
      if (end != nullptr && *end == '\0') return static_cast<std::uint64_t>(parsed);
      throw std::invalid_argument(std::string("CUDALABS_SEED: '") + text +
                                  "' is not a non-negative decimal integer");
    }
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }();
  return seed;
}

}  // namespace cudalabs
