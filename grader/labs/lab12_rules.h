/// @file grader/labs/lab12_rules.h
/// @brief What the referee holds a lab 12 rung to besides its output, decided by the rung's name
/// and the referee's own device query, never asked of the student's code: a rung that reported
/// its own addition depth or determinism would choose the bound it is checked against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace grader::lab12_rules {

/// The addition depth the sum `name` is checked at (the k of lab12::sum_error_bound): the most
/// additions on any path from one input to the sum, for any order of the additions inside the
/// structure the rung's name prescribes (lab.h, and launch.cuh's grids on this GPU), and never
/// more than `count` (a bound for any order at all).
std::int64_t addition_depth(const std::string& name, std::size_t count);

/// Whether the sum `name` must give the same bits twice (lab.h: the one without float atomics).
bool deterministic(const std::string& name);

/// The most workspace a lab 12 variant may ask for on `count` elements: 64 MiB and 8 bytes an
/// element (the solution's need a few bytes a tile); past it the referee refuses to allocate.
std::size_t workspace_cap(std::size_t count);

}  // namespace grader::lab12_rules
