#include "common/dcgan_check.h"

#include "common/dcgan_model.h"
#include "common/reference_dcgan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace cudalabs::dcgan {

std::vector<int> spread_picks(int count, int wanted) {
  std::vector<int> picks;
  wanted = std::min(wanted, count);
  for (int i = 0; i < wanted; ++i) {
    const int index =
        wanted == 1 ? 0 : static_cast<int>(static_cast<long long>(i) * (count - 1) / (wanted - 1));
    if (picks.empty() || picks.back() != index) picks.push_back(index);
  }
  return picks;
}

ImageTolerance image_tolerance(ComputePrecision precision) {
  switch (precision) {
    case ComputePrecision::kTf32:
      return {1.5e-2, 2.5e-4};
    case ComputePrecision::kBf16:
      return {1.25e-1, 2.5e-3};
    case ComputePrecision::kFp32:
      break;
  }
  return {kImageTolerance, kImageTolerance};
}

ImageCheck check_images(std::span<const float> images, const std::vector<int>& picks,
                        const std::vector<double>& reference, ComputePrecision precision) {
  const ImageTolerance tolerance = image_tolerance(precision);
  ImageCheck check;
  std::size_t unwritten = 0, worst_at = 0;
  double sum = 0.0;
  for (std::size_t p = 0; p < picks.size(); ++p) {
    for (std::size_t e = 0; e < kImageFloats; ++e) {
      const float value = images[static_cast<std::size_t>(picks[p]) * kImageFloats + e];
      if (!std::isfinite(value)) {
        ++unwritten;
        continue;
      }
      const double difference = std::abs(value - reference[p * kImageFloats + e]);
      sum += difference;
      if (difference > check.max_difference) {
        check.max_difference = difference;
        worst_at = p * kImageFloats + e;
      }
    }
  }
  std::ostringstream text;
  if (unwritten == picks.size() * kImageFloats) {
    check.unwritten = true;
    text << "FAIL: no image value written (NaN everywhere): not implemented yet";
  } else if (unwritten > 0) {
    text << "FAIL: " << unwritten << " values NaN or never written";
  } else {
    check.mean_difference = sum / static_cast<double>(picks.size() * kImageFloats - unwritten);
    check.passed = check.max_difference <= tolerance.max_difference &&
                   check.mean_difference <= tolerance.mean_difference;
    const std::size_t image = worst_at / kImageFloats, rest = worst_at % kImageFloats;
    text << (check.passed ? "PASS" : "FAIL") << ": max |gpu - reference| = " << std::scientific;
    text.precision(2);
    text << check.max_difference << " (tolerance " << tolerance.max_difference << ") at image "
         << picks[image] << " (y " << rest / (64 * 3) << ", x " << rest / 3 % 64 << ", c "
         << rest % 3 << ")";
    if (precision != ComputePrecision::kFp32) {
      text << ", mean " << check.mean_difference << " (tolerance " << tolerance.mean_difference
           << ", " << precision_name(precision) << " inputs)";
    }
  }
  check.message = text.str();
  return check;
}

std::vector<double> reference_images(const Weights& weights, std::span<const float> latents,
                                     const std::vector<int>& picks) {
  std::vector<float> picked;
  for (int p : picks) {
    const auto first = latents.begin() + static_cast<std::ptrdiff_t>(p) * kLatent;
    picked.insert(picked.end(), first, first + kLatent);
  }
  return reference_generator(weights, picked, static_cast<int>(picks.size()));
}

bool identical_images(std::span<const float> got, std::span<const float> expected,
                      std::string& message) {
  if (got.size() != expected.size()) {
    message = "FAIL: " + std::to_string(got.size()) + " values against " +
              std::to_string(expected.size());
    return false;
  }
  std::size_t differ = 0, first = 0;
  for (std::size_t e = 0; e < got.size(); ++e) {
    if (std::memcmp(&got[e], &expected[e], sizeof(float)) != 0 && differ++ == 0) first = e;
  }
  message = differ == 0
                ? "PASS"
                : "FAIL: " + std::to_string(differ) + " values differ, the first in image " +
                      std::to_string(first / kImageFloats);
  return differ == 0;
}

}  // namespace cudalabs::dcgan
