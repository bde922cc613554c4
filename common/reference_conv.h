/// @file reference_conv.h
/// @brief The CPU reference convolution (conv_types.h): float inputs, double accumulation, OpenMP.
#pragma once

#include "common/conv_types.h"
#include "common/reference_gemm.h"

#include <cstdint>
#include <span>
#include <vector>

namespace cudalabs {

/// Every output element in double, as ReferenceValues of an (N*F*P) x Q matrix: row (n*F + f)*P +
/// p, column q, which is exactly the N x F x P x Q output read row-major. The magnitude of an
/// element is sum |input| |filter| over its C*R*S terms: the scale of any float32 evaluation's
/// rounding error, so compare_gemm (gemm_compare.h) checks a convolution with k = C*R*S. Throws
/// std::invalid_argument when a span is shorter than the shape needs.
ReferenceValues reference_conv2d(const ConvShape& shape, std::span<const float> input,
                                 std::span<const float> filter);

/// Only the elements at `positions` (row * Q + q in the matrix view above): for shapes too large
/// for the full reference.
ReferenceValues reference_conv2d_at(const ConvShape& shape, std::span<const float> input,
                                    std::span<const float> filter,
                                    std::vector<std::int64_t> positions);

}  // namespace cudalabs
