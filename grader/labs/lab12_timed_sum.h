/// @file grader/labs/lab12_timed_sum.h
/// @brief The inputs and the bound of lab 12's timed sums: a check that a skipped or partial sum
/// cannot pass. Random floats in [-1, 1) sum to about sqrt(n) while the worst-case bound of a deep
/// summation, gamma_depth times the sum of |x|, is about depth x 2^-24 x n / 2: far above the sum
/// itself (infinite from depth 2^24 on), so a result of 0 passed. The timed pool is integers
/// instead: one +1 or -1 at a random place in every group of `exact_stride(count)` elements, zeros
/// between, so that any window of `count` holds at most 2^24 nonzero values. Every partial sum of
/// such a window, in any order of FP32 additions, is an integer of magnitude at most 2^24, exactly
/// representable: every rung's sum is exact, and a result missing one nonzero element is off by 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace grader::lab12_rules {

/// The largest sum of magnitudes of integer inputs whose every order of FP32 additions is exact.
inline constexpr double kExactIntegerLimit = 16777216.0;  // 2^24

/// The group length of the timed pool for windows of `count`: 1 (every element +-1) while
/// count <= 2^24, else the smallest s for which ceil(count / s) + 1 groups (a window that starts
/// inside one) hold at most 2^24 nonzero values.
std::size_t exact_stride(std::size_t count);

/// `size` values: in every group of `stride` consecutive ones, one +1 or -1 at a place drawn from
/// `seed`, the rest 0.
std::vector<float> exact_pool(std::size_t size, std::size_t stride, std::uint64_t seed);

/// The bound the timed sum is held to, in double: 0 when the inputs are integers whose magnitudes
/// add up to at most 2^24 (every order exact); otherwise gamma_depth times the sum of magnitudes
/// (lab12::sum_error_bound). Throws referee::CheckCannotFail (a std::logic_error) when that bound
/// is infinite (depth x 2^-24 >= 1) or not below the sum of magnitudes: a check that could not fail
/// is a grader defect, never a pass.
double timed_sum_bound(std::int64_t depth, double sum_of_magnitudes, bool integer_inputs);

}  // namespace grader::lab12_rules
