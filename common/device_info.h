/// @file device_info.h
/// @brief Is there a GPU, which one, and what are its limits.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cudalabs {

/// Thrown by require_gpu() when no usable CUDA GPU is present; its message is one line.
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the CUDA runtime answered when asked for its devices, and what lies behind the answer: the
/// facts no_gpu_reason words.
struct GpuProbe {
  int status = 0;                     ///< cudaGetDeviceCount's cudaError_t (0: cudaSuccess)
  std::string status_text;            ///< cudaGetErrorString of `status`
  int device_count = 0;               ///< devices it found
  bool driver_library_loads = false;  ///< libcuda.so.1, the driver's user-space half, loads
  int driver_version = 0;             ///< cudaDriverGetVersion (0 when there is no driver)
  int runtime_version = 0;            ///< cudaRuntimeGetVersion: the runtime this program uses
};

/// The one line that says why no GPU can be used, "no CUDA GPU available (...)", or nullopt when
/// one can. The runtime answers cudaErrorInsufficientDriver both where no driver is installed and
/// where it is older than the runtime: the line tells them apart (whether libcuda.so.1 loads).
std::optional<std::string> no_gpu_reason(const GpuProbe& probe);

/// Why no GPU can be used on this machine (no_gpu_reason of its probe), or nullopt when device 0
/// is usable. The answer is computed once per process.
std::optional<std::string> gpu_unavailable_reason();

/// Throws NoGpuError with gpu_unavailable_reason() when no GPU can be used.
void require_gpu();

/// The properties of the current device the labs report and reason with.
struct DeviceInfo {
  int index = 0;                           ///< CUDA device ordinal
  std::string name;                        ///< e.g. "NVIDIA H100 80GB HBM3"
  int major = 0;                           ///< compute capability, major
  int minor = 0;                           ///< compute capability, minor
  int sm_count = 0;                        ///< multiprocessors
  std::size_t global_memory_bytes = 0;     ///< device memory
  std::size_t l2_bytes = 0;                ///< L2 cache
  std::size_t shared_per_sm = 0;           ///< shared memory per multiprocessor (maximum carveout)
  std::size_t shared_per_block = 0;        ///< shared memory per block without opt-in (48 KiB)
  std::size_t shared_per_block_optin = 0;  ///< shared memory per block with opt-in
  std::size_t reserved_shared_per_block = 0;  ///< shared memory the driver reserves per block
  int registers_per_sm = 0;                   ///< 32-bit registers per multiprocessor
  int max_threads_per_sm = 0;                 ///< resident threads per multiprocessor
  int max_blocks_per_sm = 0;                  ///< resident blocks per multiprocessor
  int max_threads_per_block = 0;              ///< threads per block
  int warp_size = 0;                          ///< threads per warp
  int sm_clock_khz = 0;                       ///< peak SM clock
  int memory_clock_khz = 0;                   ///< peak memory clock
  int memory_bus_bits = 0;                    ///< memory bus width
  int driver_version = 0;                     ///< e.g. 13000 for CUDA 13.0
  int runtime_version = 0;                    ///< the runtime this program was built against

  /// The name in lower case with dashes, for file names: "nvidia-h100-80gb-hbm3".
  std::string slug() const;
  /// "13.0"-style text of a CUDA version number.
  static std::string version_text(int version);
};

/// Reads the current device's properties. Requires a GPU.
DeviceInfo current_device_info();

/// The name of CUDA device `device` ("?" when it cannot be read).
std::string device_name(int device);

/// FP32 lanes (CUDA cores) per multiprocessor for a compute capability, 0 when unknown. Used only
/// to print the clock-derived FP32 peak next to the one the roofline lab measures.
int fp32_lanes_per_sm(int major, int minor);

/// Lower-cases `name` and turns every run of other characters than letters and digits into one
/// dash.
std::string device_slug(std::string_view name);

/// Throws std::invalid_argument when `bytes` more bytes would not fit in the device's free memory,
/// naming `what` (the flags that asked for it) and both sizes, so that a too-large problem is
/// refused as bad input before any allocation.
void require_device_memory(std::size_t bytes, const std::string& what);

/// A device's memory in bytes, as cudaMemGetInfo reports it.
struct DeviceMemory {
  std::size_t free_bytes = 0;   ///< free now (other processes' allocations taken)
  std::size_t total_bytes = 0;  ///< the device's whole memory
};

/// The current device's free and total memory (cudaMemGetInfo).
DeviceMemory device_memory();

/// A driver's default problem size on this GPU: `size` halved until `bytes(size)` fits in nine
/// tenths of `free_bytes` (the rest for the context and the libraries' scratch), never below
/// `smallest`. Only defaults shrink: a size given by a flag is refused by require_device_memory.
long long halve_until_fits(long long size, long long smallest, std::size_t free_bytes,
                           const std::function<std::size_t(long long)>& bytes);

/// Throws std::invalid_argument when `bytes` of host memory would be more than half of this
/// machine's physical memory, naming `what` and both sizes (the DCGAN drivers hold every image in
/// host memory).
void require_host_memory(std::size_t bytes, const std::string& what);

}  // namespace cudalabs
