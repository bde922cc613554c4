/// @file launch_report.h
/// @brief What a variant's launch asks of the GPU: grid, block, registers, shared memory,
/// occupancy.
#pragma once

#include "common/gemm_variant.h"
#include "common/occupancy.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace cudalabs {

/// One variant's launch for one shape, with its resources and theoretical occupancy.
struct LaunchReport {
  std::string variant;            ///< the variant's name
  KernelLaunch launch;            ///< kernel, grid, block, dynamic shared memory
  int registers_per_thread = 0;   ///< from cudaFuncGetAttributes
  std::size_t static_shared = 0;  ///< static shared memory per block, bytes
  std::size_t local_bytes = 0;    ///< local memory per thread (spills, stack), bytes
  OccupancyResult occupancy;      ///< from the calculator, at the largest carveout
  int api_active_blocks = 0;      ///< cudaOccupancyMaxActiveBlocksPerMultiprocessor, for comparison
};

/// Reads the kernel's attributes and computes its occupancy on the current device. Requires a GPU.
LaunchReport report_launch(const std::string& variant, const KernelLaunch& launch,
                           const OccupancyLimits& limits);

/// Prints one row per report: grid, block, registers, shared memory, the four block limits,
/// theoretical occupancy and what limits it.
void print_launch_table(std::ostream& out, const std::vector<LaunchReport>& reports);

}  // namespace cudalabs
