#include "common/occupancy.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

namespace cudalabs {

namespace {

constexpr std::size_t KiB = 1024;

int round_up(int value, int unit) {
  return (value + unit - 1) / unit * unit;
}
std::size_t round_up(std::size_t value, std::size_t unit) {
  return (value + unit - 1) / unit * unit;
}

std::vector<std::size_t> kib(std::initializer_list<std::size_t> sizes) {
  std::vector<std::size_t> bytes;
  for (const std::size_t size : sizes) bytes.push_back(size * KiB);
  return bytes;
}

}  // namespace

OccupancyLimits OccupancyLimits::for_compute_capability(int major, int minor) {
  OccupancyLimits limits;  // defaults: Hopper (9.0)
  const int cc = major * 10 + minor;
  switch (cc) {
    case 70:  // Volta
      limits.max_warps_per_sm = 64;
      limits.max_blocks_per_sm = 32;
      limits.shared_per_sm = 96 * KiB;
      limits.shared_per_block_optin = 96 * KiB;
      limits.reserved_shared_per_block = 0;
      limits.shared_carveouts = kib({0, 8, 16, 32, 64, 96});
      break;
    case 75:  // Turing
      limits.max_warps_per_sm = 32;
      limits.max_blocks_per_sm = 16;
      limits.shared_per_sm = 64 * KiB;
      limits.shared_per_block_optin = 64 * KiB;
      limits.reserved_shared_per_block = 0;
      limits.shared_carveouts = kib({32, 64});
      break;
    case 80:  // A100
      limits.max_warps_per_sm = 64;
      limits.max_blocks_per_sm = 32;
      limits.shared_per_sm = 164 * KiB;
      limits.shared_per_block_optin = 163 * KiB;
      limits.shared_carveouts = kib({0, 8, 16, 32, 64, 100, 132, 164});
      break;
    case 86:  // GA10x (RTX 30)
    case 89:  // Ada (RTX 40, L4, L40)
      limits.max_warps_per_sm = 48;
      limits.max_blocks_per_sm = cc == 86 ? 16 : 24;
      limits.shared_per_sm = 100 * KiB;
      limits.shared_per_block_optin = 99 * KiB;
      limits.shared_carveouts = kib({0, 8, 16, 32, 64, 100});
      break;
    case 87:  // Orin
      limits.max_warps_per_sm = 48;
      limits.max_blocks_per_sm = 16;
      limits.shared_per_sm = 164 * KiB;
      limits.shared_per_block_optin = 163 * KiB;
      limits.shared_carveouts = kib({0, 8, 16, 32, 64, 100, 132, 164});
      break;
    case 90:   // Hopper
    case 100:  // Blackwell datacenter
      limits.max_warps_per_sm = 64;
      limits.max_blocks_per_sm = 32;
      limits.shared_per_sm = 228 * KiB;
      limits.shared_per_block_optin = 227 * KiB;
      limits.shared_carveouts = kib({0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
      break;
    case 120:  // Blackwell consumer
      limits.max_warps_per_sm = 48;
      limits.max_blocks_per_sm = 32;
      limits.shared_per_sm = 100 * KiB;
      limits.shared_per_block_optin = 99 * KiB;
      limits.shared_carveouts = kib({0, 8, 16, 32, 64, 100});
      break;
    default:
      throw std::invalid_argument("occupancy: no limits known for compute capability " +
                                  std::to_string(major) + "." + std::to_string(minor));
  }
  return limits;
}

OccupancyLimits OccupancyLimits::for_device(const DeviceInfo& device) {
  OccupancyLimits limits;
  try {
    limits = for_compute_capability(device.major, device.minor);
  } catch (const std::invalid_argument&) {
    // An architecture newer than the table: its reported properties still give every limit but the
    // carveout list; assume the largest configuration only.
    limits.shared_carveouts = {device.shared_per_sm};
  }
  limits.warp_size = device.warp_size;
  limits.max_threads_per_block = device.max_threads_per_block;
  limits.max_warps_per_sm = device.max_threads_per_sm / device.warp_size;
  limits.max_blocks_per_sm = device.max_blocks_per_sm;
  limits.registers_per_sm = device.registers_per_sm;
  limits.shared_per_sm = device.shared_per_sm;
  limits.shared_per_block_optin = device.shared_per_block_optin;
  limits.reserved_shared_per_block = device.reserved_shared_per_block;
  return limits;
}

OccupancyResult theoretical_occupancy(const KernelResources& kernel, const OccupancyLimits& limits,
                                      std::size_t shared_config) {
  if (kernel.threads_per_block < 1 || kernel.threads_per_block > limits.max_threads_per_block) {
    throw std::invalid_argument(
        "occupancy: threads per block = " + std::to_string(kernel.threads_per_block) +
        " is outside 1.." + std::to_string(limits.max_threads_per_block));
  }
  if (kernel.registers_per_thread < 0 ||
      kernel.registers_per_thread > limits.max_registers_per_thread) {
    throw std::invalid_argument(
        "occupancy: registers per thread = " + std::to_string(kernel.registers_per_thread) +
        " is outside 0.." + std::to_string(limits.max_registers_per_thread));
  }
  OccupancyResult r;
  r.warps_per_block = (kernel.threads_per_block + limits.warp_size - 1) / limits.warp_size;
  r.block_limit_sm = limits.max_blocks_per_sm;
  r.block_limit_warps = limits.max_warps_per_sm / r.warps_per_block;

  // Registers: whole warps per sub-partition.
  r.registers_per_warp =
      round_up(kernel.registers_per_thread * limits.warp_size, limits.register_allocation_unit);
  if (r.registers_per_warp == 0) {
    r.block_limit_registers = limits.max_blocks_per_sm;
  } else {
    // The hardware checks a block against the per-block register limit as if its warps were spread
    // over all sub-partitions.
    const int assumed = r.registers_per_warp * round_up(r.warps_per_block, limits.sub_partitions);
    if (assumed > limits.registers_per_block) {
      throw std::invalid_argument(
          "occupancy: a block of " + std::to_string(kernel.threads_per_block) + " threads at " +
          std::to_string(kernel.registers_per_thread) + " registers needs " +
          std::to_string(assumed) + " registers, more than the " +
          std::to_string(limits.registers_per_block) + " a block may use");
    }
    const int warps_per_sub_partition =
        (limits.registers_per_sm / limits.sub_partitions) / r.registers_per_warp;
    r.block_limit_registers = warps_per_sub_partition * limits.sub_partitions / r.warps_per_block;
  }

  // Shared memory.
  r.shared_per_block = round_up(kernel.shared_per_block + limits.reserved_shared_per_block,
                                limits.shared_allocation_unit);
  if (kernel.shared_per_block > limits.shared_per_block_optin) {
    throw std::invalid_argument(
        "occupancy: shared memory per block = " + std::to_string(kernel.shared_per_block) +
        " bytes exceeds the " + std::to_string(limits.shared_per_block_optin) + " a block may use");
  }
  r.shared_config = shared_config == 0 ? limits.shared_per_sm : shared_config;
  r.block_limit_shared =
      r.shared_per_block == 0 ? INT_MAX : static_cast<int>(r.shared_config / r.shared_per_block);

  r.active_blocks = std::min(
      {r.block_limit_sm, r.block_limit_warps, r.block_limit_registers, r.block_limit_shared});
  r.active_warps = r.active_blocks * r.warps_per_block;
  r.occupancy = static_cast<double>(r.active_warps) / limits.max_warps_per_sm;
  // The limiter: every resource whose limit is the answer (ties are common: 16x16 blocks on an
  // RTX 3080 are held to 6 by warps and registers alike).
  const std::pair<int, const char*> limits_by_name[] = {{r.block_limit_warps, "warps"},
                                                        {r.block_limit_registers, "registers"},
                                                        {r.block_limit_shared, "shared memory"},
                                                        {r.block_limit_sm, "blocks per SM"}};
  for (const auto& [limit, name] : limits_by_name) {
    if (limit != r.active_blocks) continue;
    if (!r.limiter.empty()) r.limiter += ", ";
    r.limiter += name;
  }
  return r;
}

std::size_t choose_carveout(const KernelResources& kernel, const OccupancyLimits& limits) {
  const OccupancyResult at_max = theoretical_occupancy(kernel, limits, limits.shared_per_sm);
  const int others =
      std::min({at_max.block_limit_sm, at_max.block_limit_warps, at_max.block_limit_registers});
  const int wanted = std::min(others, at_max.block_limit_shared);
  for (const std::size_t carveout : limits.shared_carveouts) {
    if (at_max.shared_per_block == 0 ||
        static_cast<int>(carveout / at_max.shared_per_block) >= wanted) {
      return carveout;
    }
  }
  return limits.shared_per_sm;
}

}  // namespace cudalabs
