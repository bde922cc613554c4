/// @file random_fill.h
/// @brief Seeded random inputs: every check draws fresh values, and the seed reproduces them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace cudalabs {

/// The draw at `index` (from 0) of the SplitMix64 sequence seeded with `seed`: the generator behind
/// every seeded input here. Its state only counts up by a constant, so any draw is computed
/// directly, and a large input can be filled in parallel chunks with the serial sequence's values.
inline std::uint64_t splitmix64_at(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Fills `values` with numbers drawn uniformly from [lo, hi) by a generator seeded with `seed`.
/// The same seed gives the same values on every machine (the generator and the mapping to floats
/// are the suite's own, not the standard library's implementation-defined distributions).
void fill_uniform(std::span<float> values, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

/// A seed for one check, derived from a run-wide seed and the check's name, so that every check of
/// a run sees different inputs and one failing check can be rerun alone with the same run seed.
std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view check_name);

/// The run-wide seed: the value of the environment variable CUDALABS_SEED when set (decimal),
/// otherwise a fresh value from std::random_device. Chosen once per process.
std::uint64_t run_seed();

}  // namespace cudalabs
