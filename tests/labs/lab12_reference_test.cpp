// Lab 12's CPU references, tested on the CPU: the compensated sum against hand-worked cases and an
// exact integer formulation, the error bound's gamma, the exact-sum inputs (every order of FP32
// additions gets them exactly), the scan against std::inclusive_scan, the histogram's inputs and
// counts, and the split of an array for 128-bit loads. The references and inputs are built in
// parallel chunks: each is checked on arrays of several chunks against the serial formulation.
#include "labs/12_reduce_scan_histogram/lab.h"
#include "labs/12_reduce_scan_histogram/reference.h"
#include "labs/12_reduce_scan_histogram/vectors.cuh"

#include "common/random_fill.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace {

using lab12::reference_sum;

// More than the references' chunk of 2^20 elements, and not a multiple of it.
constexpr std::size_t kSeveralChunks = 3 * (std::size_t{1} << 20) + 7;

// The serial SplitMix64 sequence the inputs are defined by (the references draw it by index).
struct SerialRandom {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

TEST(ReferenceSum, HandWorkedCases) {
  EXPECT_EQ(reference_sum(std::vector<float>{1.0f, 2.0f, 3.5f}), 6.5);
  EXPECT_EQ(reference_sum(std::vector<float>{0.5f}), 0.5);
  // 1e16 + 1 - 1e16: a plain double sum loses the 1 (the spacing of doubles near 1e16 is 2);
  // the compensation keeps it.
  const float big = 1e16f;
  EXPECT_EQ(reference_sum(std::vector<float>{big, 1.0f, -big}), 1.0);
  EXPECT_EQ(reference_sum(std::vector<float>{1.0f, big, -big}), 1.0);
  EXPECT_EQ(lab12::sum_of_magnitudes(std::vector<float>{-1.5f, 2.0f}), 3.5);
}

// Each value a 24-bit integer times 2^e, e in [-40, 0]: times 2^64 an integer below 2^88, so a
// 128-bit integer sum of them is exact: the sum's second, independent formulation.
TEST(ReferenceSum, AgreesWithAnExactIntegerSum) {
  std::uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  std::vector<float> values(kSeveralChunks);
  __int128 exact = 0;
  double magnitudes = 0.0;
  for (float& value : values) {
    const long long mantissa = static_cast<long long>(next() & 0xFFFFFF) - 0x800000;
    const int exponent = -static_cast<int>(next() % 41);
    value = std::ldexp(static_cast<float>(mantissa), exponent);
    exact += static_cast<__int128>(mantissa) * (static_cast<__int128>(1) << (64 + exponent));
    magnitudes += std::fabs(static_cast<double>(value));
  }
  const double exact_value = std::ldexp(static_cast<double>(exact), -64);
  EXPECT_LE(std::fabs(reference_sum(values) - exact_value), 4 * 0x1.0p-53 * magnitudes);
}

TEST(ReferenceSum, TheBoundsGamma) {
  EXPECT_EQ(lab12::sum_gamma(0), 0.0);
  EXPECT_DOUBLE_EQ(lab12::sum_gamma(1), 0x1.0p-24 / (1 - 0x1.0p-24));
  EXPECT_TRUE(std::isinf(lab12::sum_gamma(std::int64_t{1} << 24)));
  EXPECT_DOUBLE_EQ(lab12::sum_error_bound(1000, 2.0), 2.0 * lab12::sum_gamma(1000));
}

// Sums in float forwards, backwards and pairwise: three different orders.
float forward(const std::vector<float>& v) {
  float s = 0.0f;
  for (const float x : v) s += x;
  return s;
}
float backward(const std::vector<float>& v) {
  float s = 0.0f;
  for (auto it = v.rbegin(); it != v.rend(); ++it) s += *it;
  return s;
}
float pairwise(const float* v, std::size_t n) {
  if (n == 1) return v[0];
  return pairwise(v, n / 2) + pairwise(v + n / 2, n - n / 2);
}

TEST(ExactSumInputs, EveryOrderGetsThemExactly) {
  for (const std::size_t count :
       {std::size_t{1}, std::size_t{1000003}, (std::size_t{1} << 25) + 3}) {
    const std::vector<float> values = lab12::exact_sum_inputs(count, 7);
    const double exact = reference_sum(values);
    EXPECT_EQ(static_cast<double>(forward(values)), exact) << count;
    EXPECT_EQ(static_cast<double>(backward(values)), exact) << count;
    EXPECT_EQ(static_cast<double>(pairwise(values.data(), values.size())), exact) << count;
  }
}

TEST(ExactSumInputs, DenseUpTo2To24AndBoundedBeyond) {
  const std::vector<float> dense = lab12::exact_sum_inputs(100001, 3);
  for (const float x : dense) ASSERT_TRUE(x == 1.0f || x == -1.0f);
  const std::size_t count = (std::size_t{1} << 26) + 12345;
  const std::vector<float> sparse = lab12::exact_sum_inputs(count, 3);
  std::size_t nonzero = 0;
  for (const float x : sparse) {
    ASSERT_TRUE(x == 1.0f || x == -1.0f || x == 0.0f);
    nonzero += x != 0.0f ? 1 : 0;
  }
  EXPECT_LE(nonzero, std::size_t{1} << 24);  // every partial sum is an integer <= 2^24
  EXPECT_NE(sparse.front(), 0.0f);
  EXPECT_NE(sparse.back(), 0.0f);
  EXPECT_NE(sparse[(std::size_t{1} << 22) - 1], 0.0f);
  EXPECT_NE(sparse[count - (std::size_t{1} << 22)], 0.0f);
}

TEST(ExactSumInputs, TheSerialDrawsInOrder) {
  for (const std::size_t count : {kSeveralChunks, (std::size_t{1} << 25) + 3}) {
    std::vector<float> serial(count, 0.0f);
    SerialRandom random{9};
    auto sign = [&random] { return (random.next() >> 63) != 0 ? 1.0f : -1.0f; };
    if (count <= (std::size_t{1} << 24)) {
      for (float& value : serial) value = sign();
    } else {
      const std::size_t ends = std::size_t{1} << 22;
      const std::size_t stride = (count - 2 * ends + (std::size_t{1} << 23) - 1) >> 23;
      for (std::size_t i = 0; i < ends; ++i) {
        serial[i] = sign();
        serial[count - 1 - i] = sign();
      }
      for (std::size_t i = ends; i < count - ends; i += stride) serial[i] = sign();
    }
    EXPECT_EQ(lab12::exact_sum_inputs(count, 9), serial) << count;
  }
}

TEST(ReferenceScan, HandWorkedAndWrapping) {
  EXPECT_EQ(lab12::reference_inclusive_scan(std::vector<std::uint32_t>{1, 2, 3}),
            (std::vector<std::uint32_t>{1, 3, 6}));
  EXPECT_EQ(lab12::reference_inclusive_scan(std::vector<std::uint32_t>{0xFFFFFFFFu, 2, 0}),
            (std::vector<std::uint32_t>{0xFFFFFFFFu, 1, 1}));
}

TEST(ReferenceScan, AgreesWithTheStandardLibrary) {
  const std::vector<std::uint32_t> input = lab12::scan_inputs(kSeveralChunks, 11);
  SerialRandom random{11};
  for (const std::uint32_t value : input)
    ASSERT_EQ(value, static_cast<std::uint32_t>(random.next() >> 32));
  std::vector<std::uint32_t> expected(input.size());
  std::inclusive_scan(input.begin(), input.end(), expected.begin());
  EXPECT_EQ(lab12::reference_inclusive_scan(input), expected);
  EXPECT_EQ(lab12::scan_inputs(5, 11), lab12::scan_inputs(5, 11));  // seeded
}

TEST(ReferenceHistogram, CountsAndDistributions) {
  const std::vector<std::uint8_t> bytes = {0, 1, 1, 255, 255, 255};
  const auto bins = lab12::reference_histogram(bytes);
  EXPECT_EQ(bins[0], 1u);
  EXPECT_EQ(bins[1], 2u);
  EXPECT_EQ(bins[255], 3u);
  EXPECT_EQ(std::accumulate(bins.begin(), bins.end(), 0u), 6u);

  const std::size_t count = 200000;
  const auto uniform = lab12::reference_histogram(
      lab12::histogram_inputs(count, lab12::ByteDistribution::kUniform, 5));
  for (const std::uint32_t n : uniform) EXPECT_NEAR(n, count / 256.0, 0.2 * count / 256.0);
  const auto skewed = lab12::reference_histogram(
      lab12::histogram_inputs(count, lab12::ByteDistribution::kSkewed, 5));
  EXPECT_GT(skewed[0], count * 0.85);
  const auto single = lab12::reference_histogram(
      lab12::histogram_inputs(count, lab12::ByteDistribution::kSingleValue, 5));
  EXPECT_EQ(single[lab12::kSingleByteValue], count);
}

TEST(ReferenceHistogram, TheSerialDrawsAndCountsAcrossChunks) {
  using lab12::ByteDistribution;
  for (const ByteDistribution distribution :
       {ByteDistribution::kUniform, ByteDistribution::kSkewed, ByteDistribution::kSingleValue}) {
    const std::vector<std::uint8_t> bytes =
        lab12::histogram_inputs(kSeveralChunks, distribution, 13);
    SerialRandom random{13};
    std::array<std::uint32_t, lab12::kBins> serial{};
    for (const std::uint8_t byte : bytes) {
      const std::uint64_t r = random.next();
      const std::uint8_t expected = distribution == ByteDistribution::kUniform
                                        ? static_cast<std::uint8_t>(r >> 56)
                                    : distribution == ByteDistribution::kSkewed
                                        ? ((r >> 61) == 0 ? static_cast<std::uint8_t>(r >> 8) : 0)
                                        : lab12::kSingleByteValue;
      ASSERT_EQ(byte, expected) << lab12::distribution_name(distribution);
      ++serial[byte];
    }
    EXPECT_EQ(lab12::reference_histogram(bytes), serial) << lab12::distribution_name(distribution);
  }
}

TEST(VectorSplit, HeadVectorsTail) {
  alignas(16) float floats[64] = {};
  for (std::size_t offset = 0; offset < 4; ++offset) {
    for (const std::size_t count :
         {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{7}, std::size_t{33}}) {
      const lab12::VectorSplit split = lab12::split_for_vectors(floats + offset, count);
      EXPECT_EQ(split.head + 4 * split.vectors + split.tail, count);
      EXPECT_LT(split.tail, 4u);
      EXPECT_EQ(split.head, std::min<std::size_t>(count, (4 - offset) % 4));
      if (split.vectors > 0) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(floats + offset + split.head) % 16, 0u);
      }
    }
  }
  alignas(16) std::uint8_t bytes[64] = {};
  const lab12::VectorSplit split = lab12::split_for_vectors(bytes + 5, 40);
  EXPECT_EQ(split.head, 11u);
  EXPECT_EQ(split.vectors, 1u);
  EXPECT_EQ(split.tail, 13u);
}

}  // namespace
