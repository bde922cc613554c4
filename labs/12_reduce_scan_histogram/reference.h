/// @file labs/12_reduce_scan_histogram/reference.h
/// @brief Lab 12's CPU references and inputs: the sum in double with Neumaier's compensation, the
/// inclusive scan, the histogram, and the inputs the checks draw (tested in
/// tests/labs/lab12_reference_test.cpp).
#pragma once

#include "lab.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace lab12 {

/// The sum of `values` in double with Neumaier's compensated summation (Kahan's, also right when
/// an addend is larger than the running sum): off the exact sum by at most about 2 * 2^-53 times
/// the sum of |x| (plus a term in n^2 2^-106), far below FP32's errors.
double reference_sum(std::span<const float> values);

/// The sum of |x| over `values` (in double), the scale of the sum's error bound.
double sum_of_magnitudes(std::span<const float> values);

/// Inputs whose sum every order of FP32 additions computes exactly: each element is -1, 0 or +1,
/// and at most 2^24 of them are nonzero, so that every partial sum is an integer of magnitude at
/// most 2^24 (all exactly representable). Up to 2^24 elements every one is +-1 (a dropped or
/// doubled element changes the sum); beyond, the first and last 2^22 are, and one in every
/// ceil((count - 2^23) / 2^23) between them, the rest 0.
std::vector<float> exact_sum_inputs(std::size_t count, std::uint64_t seed);

/// Random uint32 inputs of the scan (the whole 32-bit range, so that the sums wrap).
std::vector<std::uint32_t> scan_inputs(std::size_t count, std::uint64_t seed);

/// output[i] = input[0] + ... + input[i] modulo 2^32.
std::vector<std::uint32_t> reference_inclusive_scan(std::span<const std::uint32_t> input);

/// How the bytes of a histogram's input are drawn.
enum class ByteDistribution {
  kUniform,      ///< every value equally likely
  kSkewed,       ///< 7 bytes in 8 are 0 (an image's background), the rest uniform
  kSingleValue,  ///< every byte is kSingleByteValue: all atomics on one bin
};

/// The byte every input of ByteDistribution::kSingleValue holds.
inline constexpr std::uint8_t kSingleByteValue = 0x5A;

/// "uniform", "skewed" or "single_value".
const char* distribution_name(ByteDistribution distribution);

/// `count` bytes drawn as `distribution` says.
std::vector<std::uint8_t> histogram_inputs(std::size_t count, ByteDistribution distribution,
                                           std::uint64_t seed);

/// The histogram of `input`: bins[v] counts the bytes equal to v.
std::array<std::uint32_t, kBins> reference_histogram(std::span<const std::uint8_t> input);

}  // namespace lab12
