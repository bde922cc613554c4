/// @file random_fill.h
/// @brief Seeded random inputs: every check draws fresh values, and the seed reproduces them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

// The draws below are computed the same way on the host and on the GPU (device_fill.h), so that a
// large input can be drawn where it is used and the CPU can still compute any element of it.
/// Marks a function both host and device code where nvcc compiles it (nothing for a C++ compiler).
#ifdef __CUDACC__
#define CUDALABS_HOST_DEVICE __host__ __device__
#else
#define CUDALABS_HOST_DEVICE
#endif

namespace cudalabs {

/// The draw at `index` (from 0) of the SplitMix64 sequence seeded with `seed`: the generator behind
/// every seeded input here. Its state only counts up by a constant, so any draw is computed
/// directly, and a large input can be filled in parallel chunks with the serial sequence's values.
CUDALABS_HOST_DEVICE inline std::uint64_t splitmix64_at(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Element `index` of fill_uniform(values, seed, lo, hi): the top 24 bits of draw `index` as a
/// float-exact fraction in [0, 1), scaled to [lo, hi) in double (rounding can reach hi for wide
/// ranges: such a value becomes lo).
CUDALABS_HOST_DEVICE inline float uniform_at(std::uint64_t seed, std::uint64_t index,
                                             float lo = -1.0f, float hi = 1.0f) {
  const double unit = static_cast<double>(splitmix64_at(seed, index) >> 40) * 0x1.0p-24;
  const double width = static_cast<double>(hi) - static_cast<double>(lo);
#ifdef __CUDA_ARCH__
  // Rounded as the host rounds: no fused multiply-add, which nvcc would otherwise contract to.
  const float value =
      static_cast<float>(__dadd_rn(static_cast<double>(lo), __dmul_rn(width, unit)));
#else
  const float value = static_cast<float>(static_cast<double>(lo) + width * unit);
#endif
  return value >= hi ? lo : value;
}

/// Fills `values` with numbers drawn uniformly from [lo, hi) by a generator seeded with `seed`:
/// values[i] = uniform_at(seed, i, lo, hi), filled in parallel. The same seed gives the same values
/// on every machine and thread count (the generator and the mapping to floats are the suite's own,
/// not the standard library's implementation-defined distributions).
void fill_uniform(std::span<float> values, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

/// A seed for one check, derived from a run-wide seed and the check's name, so that every check of
/// a run sees different inputs and one failing check can be rerun alone with the same run seed.
std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view check_name);

/// The run-wide seed: the value of the environment variable CUDALABS_SEED when set (decimal),
/// otherwise a fresh value from std::random_device. Chosen once per process.
std::uint64_t run_seed();

}  // namespace cudalabs
