/// @file dcgan_check.h
/// @brief Checking generated images (labs 09 and 10): sampled images against the CPU reference
/// generator, and which images to sample.
#pragma once

#include "common/compute_precision.h"
#include "common/dcgan_model.h"

#include <span>
#include <string>
#include <vector>

namespace cudalabs::dcgan {

/// Largest difference from the double-precision reference an image may show: float32 rounding
/// through five layers stays near 1e-5 on [-1, 1] outputs; a wrong index or a missing tap is >
/// 1e-2.
inline constexpr double kImageTolerance = 2e-4;

/// How far images may lie from the double-precision reference when the generator's GEMM-shaped
/// layers run at a precision: the largest difference of one value, and the mean over every sampled
/// value (a wrong tap moves every pixel a little: the mean catches what the maximum allows).
struct ImageTolerance {
  double max_difference = 0.0;   ///< largest |image - reference| allowed for one value
  double mean_difference = 0.0;  ///< largest mean |image - reference| allowed over the values
};

/// FP32: kImageTolerance for both. TF32 and BF16 inputs: what rounding the layers' inputs so,
/// emulated on the CPU (reference_generator with a precision), cost the trained generator over 512
/// random latent vectors (lab11_precision_error, docs/data/dcgan/precision_error_cpu.txt: TF32 max
/// 5.6e-3 and mean 8.5e-5, BF16 max 4.8e-2 and mean 7.6e-4), times about 3 for the mean and 2.6
/// for the maximum, which grows with the number of images; a lost filter tap still fails both.
ImageTolerance image_tolerance(ComputePrecision precision);

/// Up to `wanted` image indices spread evenly over 0 .. count - 1, first and last included.
std::vector<int> spread_picks(int count, int wanted);

/// The verdict on sampled images.
struct ImageCheck {
  bool passed = false;           ///< every sampled value finite, within the tolerance
  bool unwritten = false;        ///< every sampled value NaN: the kernels wrote nothing
  double max_difference = 0.0;   ///< largest |gpu - reference| over the finite values
  double mean_difference = 0.0;  ///< mean |gpu - reference| over the finite values
  std::string message;           ///< one line: PASS/FAIL, the difference and where
};

/// Compares images `picks` of `images` (image-major, kImageFloats each) with `reference`, which
/// holds the reference images of `picks` in that order, under image_tolerance(precision).
ImageCheck check_images(std::span<const float> images, const std::vector<int>& picks,
                        const std::vector<double>& reference,
                        ComputePrecision precision = ComputePrecision::kFp32);

/// The CPU reference generator's images (double) for images `picks` of `latents` (100 floats each).
std::vector<double> reference_images(const Weights& weights, std::span<const float> latents,
                                     const std::vector<int>& picks);

/// Whether `got` equals `expected` bit for bit (the same kernels on the same z give the same floats
/// on every GPU of one kind); `message` gets "PASS" or "FAIL: N values differ, the first in image
/// I".
bool identical_images(std::span<const float> got, std::span<const float> expected,
                      std::string& message);

}  // namespace cudalabs::dcgan
