/// @file grader/call.h
/// @brief One call of a student's function, as the referee asks the runner to make it: which
/// function, which variant, its integer and real arguments and the buffers it reads and writes.
#pragma once

#include "grader/channel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace grader {

/// A buffer argument: the id of a buffer put earlier, or one of these.
inline constexpr std::int64_t kNullBuffer = -1;   ///< passes nullptr
inline constexpr std::int64_t kDummyBuffer = -2;  ///< passes a small device buffer nobody checks

struct Call {
  std::string function;               ///< e.g. "gemm.variants" (each lab's runner lists its own)
  std::string variant;                ///< the variant's name, where the function takes one
  std::vector<std::int64_t> ints;     ///< sizes, leading dimensions, flags
  std::vector<double> reals;          ///< alpha, beta, ...
  std::vector<std::int64_t> buffers;  ///< buffer ids (or kNullBuffer, kDummyBuffer)
  std::vector<std::vector<std::uint8_t>>
      blobs;  ///< host data the function takes (lab 10's latents)

  void write(Writer& out) const;
  static Call read(Reader& in);
  /// "gemm.variants rt_2d" for messages.
  std::string label() const;
};

}  // namespace grader
