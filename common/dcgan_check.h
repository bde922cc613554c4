/// @file dcgan_check.h
/// @brief Checking generated images (labs 09 and 10): sampled images against the CPU reference
/// generator, and which images to sample.
#pragma once

#include "common/dcgan_model.h"

#include <span>
#include <string>
#include <vector>

namespace cudalabs::dcgan {

/// Largest difference from the double-precision reference an image may show: float32 rounding
/// through five layers stays near 1e-5 on [-1, 1] outputs; a wrong index or a missing tap is >
/// 1e-2.
inline constexpr double kImageTolerance = 2e-4;

/// Up to `wanted` image indices spread evenly over 0 .. count - 1, first and last included.
std::vector<int> spread_picks(int count, int wanted);

/// The verdict on sampled images.
struct ImageCheck {
  bool passed = false;          ///< every sampled value finite and within kImageTolerance
  bool unwritten = false;       ///< every sampled value NaN: the kernels wrote nothing
  double max_difference = 0.0;  ///< largest |gpu - reference| over the finite values
  std::string message;          ///< one line: PASS/FAIL, the difference and where
};

/// Compares images `picks` of `images` (image-major, kImageFloats each) with `reference`, which
/// holds the reference images of `picks` in that order.
ImageCheck check_images(std::span<const float> images, const std::vector<int>& picks,
                        const std::vector<double>& reference);

/// The CPU reference generator's images (double) for images `picks` of `latents` (100 floats each).
std::vector<double> reference_images(const Weights& weights, std::span<const float> latents,
                                     const std::vector<int>& picks);

/// Whether `got` equals `expected` bit for bit (the same kernels on the same z give the same floats
/// on every GPU of one kind); `message` gets "PASS" or "FAIL: N values differ, the first in image
/// I".
bool identical_images(std::span<const float> got, std::span<const float> expected,
                      std::string& message);

}  // namespace cudalabs::dcgan
