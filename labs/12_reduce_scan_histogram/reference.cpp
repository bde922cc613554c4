#include "reference.h"

#include "common/random_fill.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lab12 {

double sum_gamma(std::int64_t depth) {
  const double ku = static_cast<double>(depth) * kFloatUnitRoundoff;
  return ku >= 1.0 ? std::numeric_limits<double>::infinity() : ku / (1.0 - ku);
}

double sum_error_bound(std::int64_t depth, double sum_of_magnitudes) {
  return sum_gamma(depth) * sum_of_magnitudes;
}

namespace {

// The references and inputs are built in fixed chunks, in parallel (the huge tests' arrays hold
// 2^28 to 2^31 elements: one thread took seconds for each). The chunks do not depend on the thread
// count, and the partial results are combined in order, so every machine gets the same bits.
constexpr std::size_t kChunk = std::size_t{1} << 20;

std::size_t chunks_of(std::size_t count) {
  return (count + kChunk - 1) / kChunk;
}

// Calls body(chunk, first, end) for every chunk of [0, count), the chunks in parallel.
template <class Body>
void for_each_chunk(std::size_t count, const Body& body) {
  const std::size_t chunks = chunks_of(count);
#pragma omp parallel for schedule(static)
  for (std::size_t c = 0; c < chunks; ++c) body(c, c * kChunk, std::min(count, (c + 1) * kChunk));
}

// A running compensated sum (Neumaier): the sum and the low-order bits its additions lost.
struct CompensatedSum {
  double sum = 0.0;
  double compensation = 0.0;

  void add(double x) {
    const double t = sum + x;
    // The low-order bits lost by t = sum + x: whichever addend is smaller lost them.
    compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
};

}  // namespace

double reference_sum(std::span<const float> values) {
  std::vector<CompensatedSum> partial(chunks_of(values.size()));
  for_each_chunk(values.size(), [&](std::size_t c, std::size_t first, std::size_t end) {
    for (std::size_t i = first; i < end; ++i) partial[c].add(values[i]);
  });
  CompensatedSum total;
  for (const CompensatedSum& chunk : partial) {
    total.add(chunk.sum);
    total.add(chunk.compensation);
  }
  return total.sum + total.compensation;
}

double sum_of_magnitudes(std::span<const float> values) {
  std::vector<double> partial(chunks_of(values.size()), 0.0);
  for_each_chunk(values.size(), [&](std::size_t c, std::size_t first, std::size_t end) {
    for (std::size_t i = first; i < end; ++i)
      partial[c] += std::fabs(static_cast<double>(values[i]));
  });
  double sum = 0.0;
  for (const double chunk : partial) sum += chunk;
  return sum;
}

namespace {

float sign_at(std::uint64_t seed, std::size_t index) {
  return (cudalabs::splitmix64_at(seed, index) >> 63) != 0 ? 1.0f : -1.0f;
}

constexpr std::size_t kDenseLimit = std::size_t{1} << 24;  // every partial sum exact up to here
constexpr std::size_t kDenseEnds = std::size_t{1} << 22;   // +-1 at each end beyond it

}  // namespace

std::vector<float> exact_sum_inputs(std::size_t count, std::uint64_t seed) {
  std::vector<float> values(count, 0.0f);
  if (count <= kDenseLimit) {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < count; ++i) values[i] = sign_at(seed, i);
    return values;
  }
  // At most 2^22 + 2^22 at the ends and 2^23 in the middle: 2^24 nonzero values in all. Draws
  // 2i and 2i + 1 give the i-th value from the front and from the back; the middle's follow.
  const std::size_t middle = count - 2 * kDenseEnds;
  const std::size_t stride = (middle + (kDenseLimit / 2) - 1) / (kDenseLimit / 2);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < kDenseEnds; ++i) {
    values[i] = sign_at(seed, 2 * i);
    values[count - 1 - i] = sign_at(seed, 2 * i + 1);
  }
  const std::size_t middle_values = (middle + stride - 1) / stride;
#pragma omp parallel for schedule(static)
  for (std::size_t j = 0; j < middle_values; ++j) {
    values[kDenseEnds + j * stride] = sign_at(seed, 2 * kDenseEnds + j);
  }
  return values;
}

std::vector<std::uint32_t> scan_inputs(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> values(count);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < count; ++i)
    values[i] = static_cast<std::uint32_t>(cudalabs::splitmix64_at(seed, i) >> 32);
  return values;
}

std::vector<std::uint32_t> reference_inclusive_scan(std::span<const std::uint32_t> input) {
  // Two passes over fixed chunks: each chunk's total, then each chunk scanned from the totals
  // before it. Unsigned sums wrap the same in any grouping, so this is the serial scan's result.
  std::vector<std::uint32_t> output(input.size());
  std::vector<std::uint32_t> totals(chunks_of(input.size()), 0);
  for_each_chunk(input.size(), [&](std::size_t c, std::size_t first, std::size_t end) {
    for (std::size_t i = first; i < end; ++i) totals[c] += input[i];
  });
  std::uint32_t before = 0;
  for (std::uint32_t& total : totals) {
    const std::uint32_t own = total;
    total = before;
    before += own;
  }
  for_each_chunk(input.size(), [&](std::size_t c, std::size_t first, std::size_t end) {
    std::uint32_t running = totals[c];
    for (std::size_t i = first; i < end; ++i) output[i] = running += input[i];
  });
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
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t r = cudalabs::splitmix64_at(seed, i);
    switch (distribution) {
      case ByteDistribution::kUniform:
        bytes[i] = static_cast<std::uint8_t>(r >> 56);
        break;
      case ByteDistribution::kSkewed:
        bytes[i] = (r >> 61) == 0 ? static_cast<std::uint8_t>(r >> 8) : std::uint8_t{0};
        break;
      case ByteDistribution::kSingleValue:
        bytes[i] = kSingleByteValue;
        break;
    }
  }
  return bytes;
}

std::array<std::uint32_t, kBins> reference_histogram(std::span<const std::uint8_t> input) {
  std::vector<std::array<std::uint32_t, kBins>> partial(chunks_of(input.size()));
  for_each_chunk(input.size(), [&](std::size_t c, std::size_t first, std::size_t end) {
    std::array<std::uint32_t, kBins>& bins = partial[c];
    bins.fill(0);
    for (std::size_t i = first; i < end; ++i) ++bins[input[i]];
  });
  std::array<std::uint32_t, kBins> bins{};
  for (const auto& chunk : partial) {
    for (std::size_t b = 0; b < kBins; ++b) bins[b] += chunk[b];
  }
  return bins;
}

}  // namespace lab12
