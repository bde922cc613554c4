/// @file launch_utils.h
/// @brief Grid arithmetic shared by the labs' launchers.
#pragma once

#include <cuda_runtime.h>

#include <concepts>
#include <string>

namespace cudalabs {

/// ceil(a / b) for positive integers: the number of tiles of size b that cover a.
template <std::integral T>
constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

/// A grid of x * y * z blocks, checked against CUDA's limits (x < 2^31, y and z <= 65535). Throws
/// std::invalid_argument naming `who` and the dimension that does not fit, instead of letting the
/// launch fail with "invalid configuration argument".
dim3 checked_grid(long long x, long long y, long long z, const std::string& who);

}  // namespace cudalabs
