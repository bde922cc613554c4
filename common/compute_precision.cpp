#include "common/compute_precision.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace cudalabs {

const char* precision_name(ComputePrecision precision) {
  switch (precision) {
    case ComputePrecision::kTf32:
      return "tf32";
    case ComputePrecision::kBf16:
      return "bf16";
    case ComputePrecision::kFp32:
      break;
  }
  return "fp32";
}

ComputePrecision parse_precision(std::string_view text, const std::string& flag) {
  for (const ComputePrecision p :
       {ComputePrecision::kFp32, ComputePrecision::kTf32, ComputePrecision::kBf16}) {
    if (text == precision_name(p)) return p;
  }
  throw std::invalid_argument(flag + ": invalid value '" + std::string(text) +
                              "' (expected fp32, tf32 or bf16)");
}

float round_to_precision(float value, ComputePrecision precision) {
  if (precision == ComputePrecision::kFp32 || !std::isfinite(value)) return value;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (precision == ComputePrecision::kTf32) {
    // Add half of the last kept place to the magnitude (ties away from zero), then drop 13 bits.
    return std::bit_cast<float>((bits + 0x1000u) & ~0x1FFFu);
  }
  // Ties to even: add 0x7FFF plus the lowest kept bit, then drop 16 bits.
  const std::uint32_t lowest_kept = (bits >> 16) & 1u;
  return std::bit_cast<float>((bits + 0x7FFFu + lowest_kept) & 0xFFFF0000u);
}

}  // namespace cudalabs
