/// @file solutions/12_reduce_scan_histogram/scan_sweep_timing.cuh
/// @brief lab12_scan_sweep's timing of one problem: cudaMemcpy, CUB and every candidate in the
/// problem's arrays, interleaved, and their table and records.
#pragma once

#include "scan_sweep_arrays.cuh"
#include "scan_sweep_candidates.cuh"

#include <nlohmann/json.hpp>

#include <vector>

namespace lab12::sweep {

/// Times cudaMemcpy, CUB and `all` on `arrays`' problem, in its buffers: after `warmups` untimed
/// measurements of every row, `repetitions` interleaved rounds (one measurement of every row per
/// round, each round starting at another row; a measurement is a few launches between two CUDA
/// events, about 2 ms of work). Prints the table of medians and returns a record per row (each
/// candidate's with "check": "PASS", as checked before timing).
nlohmann::json time_problem(Arrays& arrays, const std::vector<Candidate>& all, int warmups,
                            int repetitions);

}  // namespace lab12::sweep
