/// @file solutions/12_reduce_scan_histogram/scan_sweep_arrays.cuh
/// @brief lab12_scan_sweep's arrays on the GPU: one problem's input, output and workspaces (the
/// buffers its rows are checked and timed in), CUB's scan of the input as the reference, and the
/// checks of a row against it, before timing and again after it on a fresh input.
#pragma once

#include "common/device_buffer.h"
#include "scan_sweep_candidates.cuh"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace lab12::sweep {

/// The arrays of one problem, each offset from a 16-byte aligned allocation.
struct Arrays {
  cudalabs::DeviceBuffer<std::uint32_t> input, output, reference;
  cudalabs::DeviceBuffer<unsigned char> workspace, cub_workspace;
  cudalabs::DeviceBuffer<unsigned long long> mismatch{2};
  Problem problem{};

  /// Sized for `largest` values.
  explicit Arrays(std::size_t largest);

  /// The input and output of the current problem (at its offsets).
  const std::uint32_t* in() const { return input.data() + problem.input_offset; }
  /// See in().
  std::uint32_t* out() { return output.data() + problem.output_offset; }

  /// Draws the input from `seed` and scans it with CUB into `reference`.
  void prepare(const Problem& p, std::uint64_t seed);
  /// Enqueues CUB's scan of the input into `into`.
  void scan_with_cub(std::uint32_t* into, cudaStream_t stream = nullptr);
  /// The elements of out() that differ from the reference: {count, first index}.
  std::pair<unsigned long long, unsigned long long> mismatches();
  /// "" when the candidate's output equals CUB's under both poisons (0xFF, then 0x00, so that an
  /// element never written cannot pass), else what went wrong. One launch per poison, in these
  /// buffers.
  std::string check(const Candidate& c);
  /// Throws std::runtime_error unless CUB's scan equals the CPU's, every element.
  void check_cub_on_cpu();
};

}  // namespace lab12::sweep
