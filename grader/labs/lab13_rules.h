/// @file grader/labs/lab13_rules.h
/// @brief What the referee holds a lab 13 rung to besides its output, never asked of the student's
/// code: how much workspace it may have the referee allocate.
#pragma once

#include "labs/13_attention/lab.h"

#include <cstddef>

namespace grader::lab13_rules {

/// The most workspace an attention rung may ask for on `shape`: twice one FP32 score per (query,
/// key) of every head (attention_naive keeps one), and 64 MiB; past it the referee refuses to
/// allocate.
inline std::size_t workspace_cap(const lab13::AttentionShape& shape) {
  const std::size_t scores =
      static_cast<std::size_t>(shape.heads_total()) * shape.sequence * shape.sequence;
  return 2 * scores * sizeof(float) + (std::size_t{64} << 20);
}

}  // namespace grader::lab13_rules
