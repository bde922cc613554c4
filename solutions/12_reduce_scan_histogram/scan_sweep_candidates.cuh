/// @file solutions/12_reduce_scan_histogram/scan_sweep_candidates.cuh
/// @brief lab12_scan_sweep's rows: configurations of the look-back scan (LookbackTuning) and the
/// lab's own scan variants, each with its launch, and the problems they are checked and timed on.
#pragma once

#include "lookback_scan.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lab12::sweep {

// One problem: `count` values, the input `input_offset` and the output `output_offset` elements
// past a 16-byte boundary.
struct Problem {
  std::size_t count;
  int input_offset;
  int output_offset;

  std::string label() const {
    std::string text = "n";  // appended, not "n" + ...: GCC 12's -Wrestrict misfires on that
    text += std::to_string(count);
    if (input_offset != 0 || output_offset != 0)
      text += "_in+" + std::to_string(input_offset) + "_out+" + std::to_string(output_offset);
    return text;
  }
};

// The timed problems, and the counts only checked: around the tile sizes of the candidates
// (1024 ... 8192 values) and the warp's 32.
inline const std::vector<Problem> kTimedProblems = {
    {1u << 24, 0, 0}, {1u << 26, 0, 0}, {1u << 28, 0, 0}, {100000001, 1, 3}};
inline const std::vector<std::size_t> kCheckedCounts = {
    1, 31, 129, 1023, 1025, 3071, 3073, 4097, 6145, 8193, 12289, 24577, 1000003};
inline constexpr int kCheckedOffsets[][2] = {{0, 0}, {1, 3}, {2, 2}};

// Enqueues the scan of `count` values with a workspace of `workspace_bytes`.
using ScanLaunch =
    std::function<void(const std::uint32_t* input, std::uint32_t* output, std::size_t count,
                       void* workspace, std::size_t workspace_bytes, cudaStream_t stream)>;

// One row of the sweep: a configuration of the look-back scan, or one of the lab's scan variants
// through its own launcher (scan_lookback runs kLookbackTuning: the same kernel as its row).
struct Candidate {
  std::string name;
  lab12::LookbackTuning tuning{};
  ScanLaunch launch;
  const void* kernel = nullptr;  // the 128-bit kernel, for its registers and occupancy
};

/// The workspace of the smallest tile any candidate uses: 16 bytes of counter, a word per tile.
std::size_t workspace_bytes(std::size_t count);

/// Every row: the lab's scan variants, then the tuned configurations.
std::vector<Candidate> candidates();

/// A candidate's 128-bit kernel: its registers, and its blocks per SM at its block size.
struct KernelFacts {
  int registers = 0;
  int blocks_per_sm = 0;
};

/// See KernelFacts.
KernelFacts facts_of(const Candidate& c);

}  // namespace lab12::sweep
