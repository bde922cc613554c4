// FP8 (E4M3) rounding with scales (fp8_rounding.h), on the host through cuda_fp8.h's conversion.
#include "fp8_rounding.h"

#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lab11 {
namespace {

constexpr double kE4m3Max = 448.0;  // E4M3's largest finite value

// The scale that maps `largest` (a largest magnitude) to E4M3's largest value; 1 for all zeros.
double scale_for(double largest) {
  return largest > 0.0 ? largest / kE4m3Max : 1.0;
}

}  // namespace

float round_to_e4m3(float value) {
  return static_cast<float>(__nv_fp8_e4m3(value));
}

void round_e4m3_per_tensor(std::span<double> values) {
  double largest = 0.0;
  for (const double v : values) largest = std::max(largest, std::abs(v));
  const double scale = scale_for(largest);
  for (double& v : values) v = round_to_e4m3(static_cast<float>(v / scale)) * scale;
}

void round_e4m3_per_channel(std::span<float> values, int channels, int inner) {
  if (channels < 1 || inner < 1)
    throw std::invalid_argument("round_e4m3_per_channel: channels and inner must be >= 1");
  std::vector<double> largest(static_cast<std::size_t>(channels), 0.0);
  const auto channel_of = [&](std::size_t i) { return (i / inner) % channels; };
  for (std::size_t i = 0; i < values.size(); ++i)
    largest[channel_of(i)] = std::max(largest[channel_of(i)], std::abs(double{values[i]}));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double scale = scale_for(largest[channel_of(i)]);
    values[i] = static_cast<float>(round_to_e4m3(static_cast<float>(values[i] / scale)) * scale);
  }
}

}  // namespace lab11
