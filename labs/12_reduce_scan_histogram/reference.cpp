#include "reference.h"

#include <cmath>
#include <limits>
#include <random>

namespace lab12 {

double sum_gamma(std::int64_t depth) {
  const double ku = static_cast<double>(depth) * kFloatUnitRoundoff;
  return ku >= 1.0 ? std::numeric_limits<double>::infinity() : ku / (1.0 - ku);
}

double sum_error_bound(std::int64_t depth, double sum_of_magnitudes) {
  return sum_gamma(depth) * sum_of_magnitudes;
}

double reference_sum(std::span<const float> values) {
  double sum = 0.0, compensation = 0.0;
  for (const float value : values) {
    const double x = value;
    const double t = sum + x;
    // The low-order bits lost by t = sum + x: whichever addend is smaller lost them.
    compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  return sum + compensation;
}

double sum_of_magnitudes(std::span<const float> values) {
  double sum = 0.0;
  for (const float value : values) sum += std::fabs(static_cast<double>(value));
  return sum;
}

namespace {

// SplitMix64, as common/random_fill.cpp: the same values on every machine.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr std::size_t kDenseLimit = std::size_t{1} << 24;  // every partial sum exact up to here
constexpr std::size_t kDenseEnds = std::size_t{1} << 22;   // +-1 at each end beyond it

}  // namespace

std::vector<float> exact_sum_inputs(std::size_t count, std::uint64_t seed) {
  std::vector<float> values(count, 0.0f);
  std::uint64_t state = seed;
  auto sign = [&state] { return (next_random(state) >> 63) != 0 ? 1.0f : -1.0f; };
  if (count <= kDenseLimit) {
    for (float& value : values) value = sign();
    return values;
  }
  // At most 2^22 + 2^22 at the ends and 2^23 in the middle: 2^24 nonzero values in all.
  const std::size_t middle = count - 2 * kDenseEnds;
  const std::size_t stride = (middle + (kDenseLimit / 2) - 1) / (kDenseLimit / 2);
  for (std::size_t i = 0; i < kDenseEnds; ++i) {
    values[i] = sign();
    values[count - 1 - i] = sign();
  }
  for (std::size_t i = kDenseEnds; i < count - kDenseEnds; i += stride) values[i] = sign();
  return values;
}

std::vector<std::uint32_t> scan_inputs(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> values(count);
  std::uint64_t state = seed;
  for (std::uint32_t& value : values) value = static_cast<std::uint32_t>(next_random(state) >> 32);
  return values;
}

std::vector<std::uint32_t> reference_inclusive_scan(std::span<const std::uint32_t> input) {
  std::vector<std::uint32_t> output(input.size());
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < input.size(); ++i) output[i] = running += input[i];
  return output;
}

const char* distribution_name(ByteDistribution distribution) {
  switch (distribution) {
    case ByteDistribution::kUniform:
      return "uniform";
    case ByteDistribution::kSkewed:
      return "skewed";
    case ByteDistribution::kSingleValue:
      return "single_value";
  }
  return "?";
}

std::vector<std::uint8_t> histogram_inputs(std::size_t count, ByteDistribution distribution,
                                           std::uint64_t seed) {
  std::vector<std::uint8_t> bytes(count);
  std::uint64_t state = seed;
  for (std::uint8_t& byte : bytes) {
    const std::uint64_t r = next_random(state);
    switch (distribution) {
      case ByteDistribution::kUniform:
        byte = static_cast<std::uint8_t>(r >> 56);
        break;
      case ByteDistribution::kSkewed:
        byte = (r >> 61) == 0 ? static_cast<std::uint8_t>(r >> 8) : std::uint8_t{0};
        break;
      case ByteDistribution::kSingleValue:
        byte = kSingleByteValue;
        break;
    }
  }
  return bytes;
}

std::array<std::uint32_t, kBins> reference_histogram(std::span<const std::uint8_t> input) {
  std::array<std::uint32_t, kBins> bins{};
  for (const std::uint8_t byte : input) ++bins[byte];
  return bins;
}

}  // namespace lab12
