/// @file random_fill.h
/// @brief Seeded random inputs: every check draws fresh values, and the seed reproduces them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace cudalabs {

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
