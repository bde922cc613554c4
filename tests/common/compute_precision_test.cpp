// The precisions of the GEMM-shaped layers (common/compute_precision.h): names, bad values, and
// the rounding of TF32 and BF16 against values worked by hand and the unit roundoff bounds.
#include "common/compute_precision.h"
#include "common/random_fill.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using cudalabs::ComputePrecision;
using cudalabs::round_to_precision;

TEST(ComputePrecision, NamesParseBackAndBadValuesNameTheFlag) {
  for (const ComputePrecision p :
       {ComputePrecision::kFp32, ComputePrecision::kTf32, ComputePrecision::kBf16})
    EXPECT_EQ(cudalabs::parse_precision(cudalabs::precision_name(p)), p);
  for (const std::string bad : {"fp16", "BF16", "", "bf16 ", "fp32,"}) {
    try {
      cudalabs::parse_precision(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()),
                "--precision: invalid value '" + bad + "' (expected fp32, tf32 or bf16)");
    }
  }
  EXPECT_THROW(cudalabs::parse_precision("x", "--math"), std::invalid_argument);
}

TEST(ComputePrecision, Fp32AndNonFiniteValuesAreUnchanged) {
  for (const float v : {1.0f + std::ldexp(1.0f, -20), -3.14159f, 1e-30f}) {
    EXPECT_EQ(round_to_precision(v, ComputePrecision::kFp32), v);
  }
  for (const ComputePrecision p : {ComputePrecision::kTf32, ComputePrecision::kBf16}) {
    EXPECT_EQ(round_to_precision(std::numeric_limits<float>::infinity(), p),
              std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(round_to_precision(std::nanf(""), p)));
    EXPECT_EQ(round_to_precision(0.0f, p), 0.0f);
  }
}

TEST(ComputePrecision, Bf16KeepsSevenBitsAndBreaksTiesToEven) {
  const auto bf16 = [](float v) { return round_to_precision(v, ComputePrecision::kBf16); };
  EXPECT_EQ(bf16(1.0f), 1.0f);
  EXPECT_EQ(bf16(1.0f + std::ldexp(1.0f, -7)), 1.0f + std::ldexp(1.0f, -7));  // representable
  EXPECT_EQ(bf16(1.0f + std::ldexp(1.0f, -8)), 1.0f);  // a tie: 1.0 is the even neighbour
  EXPECT_EQ(bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));  // tie, up to even
  EXPECT_EQ(bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
            1.0f + std::ldexp(1.0f, -7));  // just above the tie
  EXPECT_EQ(bf16(-1.0f - std::ldexp(1.0f, -9)), -1.0f);
}

TEST(ComputePrecision, Tf32KeepsTenBitsAndBreaksTiesAwayFromZero) {
  const auto tf32 = [](float v) { return round_to_precision(v, ComputePrecision::kTf32); };
  EXPECT_EQ(tf32(1.0f + std::ldexp(1.0f, -10)), 1.0f + std::ldexp(1.0f, -10));  // representable
  EXPECT_EQ(tf32(1.0f + std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -10));  // a tie: away
  EXPECT_EQ(tf32(-1.0f - std::ldexp(1.0f, -11)), -1.0f - std::ldexp(1.0f, -10));
  EXPECT_EQ(tf32(1.0f + std::ldexp(1.0f, -12)), 1.0f);  // below the tie
}

TEST(ComputePrecision, RoundingErrorStaysWithinTheUnitRoundoff) {
  std::vector<float> values(20000);
  cudalabs::fill_uniform(values, 5, -1000.0f, 1000.0f);
  for (const float v : values) {
    const double bf16 = round_to_precision(v, ComputePrecision::kBf16);
    const double tf32 = round_to_precision(v, ComputePrecision::kTf32);
    ASSERT_LE(std::abs(bf16 - v), std::ldexp(std::abs(v), -8)) << v;
    ASSERT_LE(std::abs(tf32 - v), std::ldexp(std::abs(v), -11)) << v;
    // The kept bits only: the low 16 (BF16) or 13 (TF32) bits of the result are zero.
    ASSERT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(bf16)) & 0xFFFFu, 0u) << v;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(tf32)) & 0x1FFFu, 0u) << v;
  }
}

}  // namespace
