/// @file occupancy.h
/// @brief A theoretical-occupancy calculator: how many blocks of a kernel fit on one
/// multiprocessor, and which resource stops the next one, the way Nsight Compute's Occupancy
/// section reports it.
///
/// Occupancy is active warps per SM over the most an SM can hold. A block needs warp slots,
/// registers and shared memory, and an SM holds a bounded number of blocks; the smallest of those
/// four block limits is the number of resident blocks.
///  - warps: floor(max warps per SM / warps per block)
///  - registers: registers are allocated per warp, (registers per thread x 32) rounded up to the
///    allocation unit (256), and each of the SM's sub-partitions (4) holds whole warps only, so
///    warps per SM = 4 x floor((registers per SM / 4) / registers per warp)
///  - shared memory: (static + dynamic + the driver's reserved bytes per block) rounded up to the
///    allocation unit (128 bytes), divided into the shared memory configured for the SM
///  - blocks: the architecture's maximum resident blocks per SM
/// The shared memory configured per SM (the L1/shared "carveout") can be given. Without it the
/// calculator answers like cudaOccupancyMaxActiveBlocksPerMultiprocessor (the largest carveout);
/// with `choose_carveout` it picks, as the driver does at launch, the smallest carveout that does
/// not lower occupancy, which is what Nsight Compute then shows as "Block Limit Shared Mem".
#pragma once

#include "common/device_info.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cudalabs {

/// The per-SM limits of an architecture.
struct OccupancyLimits {
  int warp_size = 32;                  ///< threads per warp
  int max_threads_per_block = 1024;    ///< threads per block
  int max_warps_per_sm = 64;           ///< resident warps per SM
  int max_blocks_per_sm = 32;          ///< resident blocks per SM
  int registers_per_sm = 65536;        ///< 32-bit registers per SM
  int registers_per_block = 65536;     ///< registers one block may use
  int max_registers_per_thread = 255;  ///< registers one thread may use
  int register_allocation_unit = 256;  ///< registers are allocated to warps in multiples of this
  int sub_partitions = 4;              ///< SM sub-partitions (schedulers), each holding whole warps
  std::size_t shared_per_sm = 233472;  ///< largest shared memory configuration per SM, bytes
  std::size_t shared_per_block_optin =
      232448;  ///< most shared memory one block may opt in to, bytes
  std::size_t shared_allocation_unit =
      128;  ///< shared memory is allocated to blocks in multiples of this
  std::size_t reserved_shared_per_block =
      1024;  ///< bytes the driver reserves in every block (sm_80+)
  std::vector<std::size_t>
      shared_carveouts;  ///< the shared memory sizes an SM can be configured to, bytes

  /// Limits of a compute capability from the CUDA documentation's tables (7.0 to 9.0
  /// and 10.0, 12.0). Throws std::invalid_argument for an unknown one.
  static OccupancyLimits for_compute_capability(int major, int minor);
  /// The limits of a device: its reported properties, with the allocation rules of its
  /// architecture.
  static OccupancyLimits for_device(const DeviceInfo& device);
};

/// What one block of a kernel asks for.
struct KernelResources {
  int threads_per_block = 0;     ///< threads per block
  int registers_per_thread = 0;  ///< from cudaFuncGetAttributes (numRegs) or ptxas -v
  std::size_t shared_per_block =
      0;  ///< static + dynamic shared memory, bytes (without the reserved part)
};

/// The answer, with every block limit as Nsight Compute's Occupancy section lists them.
struct OccupancyResult {
  int warps_per_block = 0;           ///< ceil(threads / 32)
  int registers_per_warp = 0;        ///< allocated, after rounding to the allocation unit
  std::size_t shared_per_block = 0;  ///< allocated, reserved part and rounding included
  std::size_t shared_config = 0;     ///< the shared memory configured for the SM, bytes
  int block_limit_sm = 0;            ///< "Block Limit SM"
  int block_limit_warps = 0;         ///< "Block Limit Warps"
  int block_limit_registers = 0;     ///< "Block Limit Registers"
  int block_limit_shared = 0;        ///< "Block Limit Shared Mem"
  int active_blocks = 0;             ///< the smallest limit: resident blocks per SM
  int active_warps = 0;              ///< active_blocks x warps_per_block
  double occupancy = 0.0;            ///< active_warps / max warps per SM, in [0, 1]
  std::string limiter;  ///< the resources whose limit is active_blocks: "warps", "registers",
                        ///< "shared memory", "blocks per SM", comma-separated on ties
};

/// Theoretical occupancy of a kernel. `shared_config` is the shared memory configured per SM; 0
/// means the largest configuration (what cudaOccupancyMaxActiveBlocksPerMultiprocessor assumes).
/// Throws std::invalid_argument for a block that cannot launch at all (too many threads, registers
/// or shared memory), naming what is too large.
OccupancyResult theoretical_occupancy(const KernelResources& kernel, const OccupancyLimits& limits,
                                      std::size_t shared_config = 0);

/// The shared memory configuration the driver picks at launch: the smallest carveout under which
/// the shared-memory block limit does not fall below the other three limits.
std::size_t choose_carveout(const KernelResources& kernel, const OccupancyLimits& limits);

}  // namespace cudalabs
