// Lab 11's DCGAN on tensor cores, a small given piece (the same in both builds): the TF32 kernel's
// transposed filter.
#include "common/compute_precision.h"
#include "dcgan_layers.h"

#include <stdexcept>
#include <string>

namespace lab11 {
std::vector<float> transposed_packed_filter(const std::vector<float>& packed, int in_channels,
                                            int out_channels) {
  const std::size_t rows = static_cast<std::size_t>(25) * in_channels;
  if (packed.size() != rows * out_channels)
    throw std::invalid_argument("lab11 transposed_packed_filter: " + std::to_string(packed.size()) +
                                " values for 25 x " + std::to_string(in_channels) + " x " +
                                std::to_string(out_channels));
  std::vector<float> out(packed.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (int k = 0; k < out_channels; ++k)
      out[k * rows + r] = cudalabs::round_to_precision(packed[r * out_channels + k],
                                                       cudalabs::ComputePrecision::kTf32);
  return out;
}

}  // namespace lab11
