/// @file slice_sums.h
/// @brief What summing a GEMM's partial products costs, for the planners of the labs that split K
/// (lab 07's and lab 11's `best`): the traffic of slice_sums.cuh's workspace and its launches, or,
/// where the launch sums its parts itself (split_finish.cuh), the traffic and the last part's read.
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

/// What the last part of a region to arrive waits for before it can read the others, in a launch
/// that sums its parts itself: the fence after its stores, the arrival's atomic and the first
/// loads' trips to L2, microseconds (an estimate).
inline constexpr double kInPlaceSumsLatencyUs = 2.0;

/// One SM's rate reading back the parts of a region of C when the last part to arrive sums them
/// (split_finish.cuh), GB/s: loads from L2 by one group of threads. An estimate.
inline constexpr double kInPlaceSumsSmGBps = 100.0;

/// What each part of a region adds to a launch that sums its parts itself, microseconds: the parts
/// of a region arrive one after another on its word, and the last reads them all back. Fitted to
/// lab 11's split launches on an H200, whose GPU time exceeded the rest of the model by 0.18 to
/// 0.34 us a slice at eight shapes of 20 to 132 slices (median 0.22), and the few-columns kernel's
/// by 0.20 and 0.22 at 977 and 261 (docs/data/history/gemm_random_shapes_s18/README.md).
inline constexpr double kInPlaceSliceUs = 0.22;

/// What summing `slices` partial Cs of `shape` costs a launch that sums them itself
/// (split_finish.cuh): their traffic at `gbps` (every slice written and read once, C read for beta
/// and written once, in FP32), then the last part of a region to arrive reading that region's
/// `region_rows` x `region_cols` floats of every slice at kInPlaceSumsSmGBps, after every other
/// part is done and kInPlaceSumsLatencyUs, and kInPlaceSliceUs a part. No launch and no cleared
/// memory.
inline double in_place_sums_us(double slices, const GemmShape& shape, double gbps,
                               double region_rows, double region_cols) {
  const double traffic =
      (2.0 * slices + 2.0) * static_cast<double>(shape.m) * static_cast<double>(shape.n) * 4.0;
  const double last_region = slices * region_rows * region_cols * 4.0;
  return traffic / (gbps * 1e3) + last_region / (kInPlaceSumsSmGBps * 1e3) + kInPlaceSumsLatencyUs +
         slices * kInPlaceSliceUs;
}

}  // namespace cudalabs
