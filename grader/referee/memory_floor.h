/// @file grader/referee/memory_floor.h
/// @brief The least time a timed round can take on the GPU it ran on: every call must read its
/// inputs from DRAM and write its outputs to it, at the memory's peak rate, less what the L2 may
/// hold on either side of the call (lines the call before read, written lines not yet evicted). A
/// round faster than that did not do its work in the round: it was precomputed (every set reads a
/// window of one pool), or left running past the runner's reply.
#pragma once

#include <algorithm>

namespace grader::referee {

/// What one call must move at the least: its inputs read once, its outputs written once.
struct CallBytes {
  double read = 0.0, written = 0.0;
};

struct MemoryCeiling {
  double peak_bytes_per_s = 0.0;  ///< 0: unknown, no floor
  double l2_bytes = 0.0;
};

/// From the device's peak memory clock (kHz, double data rate) and bus width (bits).
inline MemoryCeiling memory_ceiling(double memory_clock_khz, double bus_bits, double l2_bytes) {
  return {2.0 * memory_clock_khz * 1e3 * bus_bits / 8.0, l2_bytes};
}

/// Seconds `calls` calls of `bytes` each take at the least; 0 when the ceiling is unknown or the L2
/// could hold what a call reads and writes.
inline double least_round_seconds(const MemoryCeiling& ceiling, CallBytes bytes, int calls) {
  if (!(ceiling.peak_bytes_per_s > 0.0)) return 0.0;
  const double from_dram = std::max(0.0, bytes.read - ceiling.l2_bytes) +
                           std::max(0.0, bytes.written - ceiling.l2_bytes);
  return calls * from_dram / ceiling.peak_bytes_per_s;
}

}  // namespace grader::referee
