/// @file slice_sums.h
/// @brief What summing a GEMM's partial products costs, for the planners of the labs that split K
/// (lab 07's and lab 11's `best`): the traffic of slice_sums.cuh's workspace and its launches.
/// Host code only, so that the planners' CPU tests use it.
#pragma once

#include "common/gemm_types.h"

namespace cudalabs {

/// What the poisoning memset and the summing kernel cost beyond their traffic: two launches, each
/// a few microseconds on a stream of back-to-back work (an estimate; lab 07's plan timings,
/// lab07_plans, compare the model with the clock).
inline constexpr double kSliceSumsLaunchUs = 5.0;

/// Bytes that `slices` partial Cs of `shape` move on their way into C (slice_sums.cuh): the first
/// slice poisoned, every slice written once by the GEMM and read once by the sum, then C read (for
/// beta) and written once, all in FP32.
inline double slice_sums_bytes(double slices, const GemmShape& shape) {
  return (2.0 * slices + 3.0) * static_cast<double>(shape.m) * static_cast<double>(shape.n) * 4.0;
}

/// The time slice_sums_bytes takes at `gbps` GB/s, plus the launches: what a split of K adds to a
/// plan, in microseconds.
inline double slice_sums_us(double slices, const GemmShape& shape, double gbps) {
  return slice_sums_bytes(slices, shape) / (gbps * 1e3) + kSliceSumsLaunchUs;
}

}  // namespace cudalabs
