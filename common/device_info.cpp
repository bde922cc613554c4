#include "common/device_info.h"

#include "common/cuda_check.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cctype>

namespace cudalabs {

std::optional<std::string> no_gpu_reason(const GpuProbe& probe) {
  const std::string none = "no CUDA GPU available (";
  if (probe.status == cudaErrorInsufficientDriver && !probe.driver_library_loads)
    return none + "no NVIDIA driver is installed: libcuda.so.1 cannot be loaded)";
  if (probe.status == cudaErrorInsufficientDriver) {
    const std::string runtime = DeviceInfo::version_text(probe.runtime_version);
    if (probe.driver_version <= 0)
      return none + "the NVIDIA driver is older than this program's CUDA runtime " + runtime +
             ": update the driver)";
    return none + "the NVIDIA driver supports CUDA " +
           DeviceInfo::version_text(probe.driver_version) +
           ", older than this program's CUDA runtime " + runtime + ": update the driver)";
  }
  if (probe.status == cudaErrorNoDevice)
    return none + "the NVIDIA driver is installed but finds no CUDA device)";
  if (probe.status != cudaSuccess) return none + "cudaGetDeviceCount: " + probe.status_text + ")";
  if (probe.device_count == 0) return none + "cudaGetDeviceCount found 0 devices)";
  return std::nullopt;
}

std::optional<std::string> gpu_unavailable_reason() {
  static const std::optional<std::string> reason = [] {
    GpuProbe probe;
    const cudaError_t status = cudaGetDeviceCount(&probe.device_count);
    probe.status = status;
    probe.status_text = cudaGetErrorString(status);
    if (status == cudaErrorInsufficientDriver) {
      // The runtime loads libcuda.so.1 the same way: where it cannot, there is no driver at all.
      if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
        probe.driver_library_loads = true;
        dlclose(driver);
      }
      cudaDriverGetVersion(&probe.driver_version);
      cudaRuntimeGetVersion(&probe.runtime_version);
    }
    return no_gpu_reason(probe);
  }();
  return reason;
}

void require_gpu() {
  if (auto reason = gpu_unavailable_reason()) throw NoGpuError(*reason);
}

std::string DeviceInfo::slug() const {
  return device_slug(name);
}

std::string DeviceInfo::version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

DeviceInfo current_device_info() {
  require_gpu();
  DeviceInfo info;
  CUDA_CHECK(cudaGetDevice(&info.index));
  cudaDeviceProp props{};
  CUDA_CHECK(cudaGetDeviceProperties(&props, info.index));
  info.name = props.name;
  info.major = props.major;
  info.minor = props.minor;
  info.sm_count = props.multiProcessorCount;
  info.global_memory_bytes = props.totalGlobalMem;
  info.l2_bytes = static_cast<std::size_t>(props.l2CacheSize);
  info.shared_per_sm = props.sharedMemPerMultiprocessor;
  info.shared_per_block = props.sharedMemPerBlock;
  info.shared_per_block_optin = props.sharedMemPerBlockOptin;
  info.reserved_shared_per_block = props.reservedSharedMemPerBlock;
  info.registers_per_sm = props.regsPerMultiprocessor;
  info.max_threads_per_sm = props.maxThreadsPerMultiProcessor;
  info.max_blocks_per_sm = props.maxBlocksPerMultiProcessor;
  info.max_threads_per_block = props.maxThreadsPerBlock;
  info.warp_size = props.warpSize;
  info.memory_bus_bits = props.memoryBusWidth;
  // The clocks left cudaDeviceProp in CUDA 13; the attributes still report them.
  CUDA_CHECK(cudaDeviceGetAttribute(&info.sm_clock_khz, cudaDevAttrClockRate, info.index));
  CUDA_CHECK(
      cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, info.index));
  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

int fp32_lanes_per_sm(int major, int minor) {
  if (major == 7) return 64;                                 // Volta, Turing
  if (major == 8) return minor == 0 ? 64 : 128;              // A100: 64; GA10x, Ada: 128
  if (major == 9 || major == 10 || major == 12) return 128;  // Hopper, Blackwell
  return 0;
}

std::string device_slug(std::string_view name) {
  std::string slug;
  bool pending_dash = false;
  for (const char raw : name) {
    const unsigned char c = static_cast<unsigned char>(raw);
    if (std::isalnum(c)) {
      if (pending_dash && !slug.empty()) slug += '-';
      pending_dash = false;
      slug += static_cast<char>(std::tolower(c));
    } else {
      pending_dash = true;
    }
  }
  return slug;
}

std::string device_name(int device) {
  cudaDeviceProp properties{};
  return cudaGetDeviceProperties(&properties, device) == cudaSuccess ? std::string(properties.name)
                                                                     : std::string("?");
}

void require_device_memory(std::size_t bytes, const std::string& what) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > free_bytes) {
    throw std::invalid_argument(what + " needs " + std::to_string(bytes >> 20) +
                                " MiB of device memory, but only " +
                                std::to_string(free_bytes >> 20) + " MiB of " +
                                std::to_string(total_bytes >> 20) + " MiB are free");
  }
}

DeviceMemory device_memory() {
  DeviceMemory memory;
  CUDA_CHECK(cudaMemGetInfo(&memory.free_bytes, &memory.total_bytes));
  return memory;
}

long long halve_until_fits(long long size, long long smallest, std::size_t free_bytes,
                           const std::function<std::size_t(long long)>& bytes) {
  const std::size_t room = free_bytes / 10 * 9;
  while (size / 2 >= smallest && bytes(size) > room) size /= 2;
  return size;
}

void require_host_memory(std::size_t bytes, const std::string& what) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0 && bytes > static_cast<std::size_t>(pages) * page / 2) {
    throw std::invalid_argument(what + " needs " + std::to_string(bytes >> 20) +
                                " MiB of host memory, more than half of this machine's " +
                                std::to_string((static_cast<std::size_t>(pages) * page) >> 20) +
                                " MiB");
  }
}

}  // namespace cudalabs
