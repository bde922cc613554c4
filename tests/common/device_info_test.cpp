#include "common/device_info.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

namespace cudalabs {
namespace {

GpuProbe probe_of(cudaError_t status, bool driver_library_loads, int driver_version) {
  GpuProbe probe;
  probe.status = status;
  probe.status_text = cudaGetErrorString(status);
  probe.driver_library_loads = driver_library_loads;
  probe.driver_version = driver_version;
  probe.runtime_version = 13000;
  return probe;
}

TEST(NoGpuReason, TellsNoDriverFromAnOldOne) {
  // The runtime answers "insufficient driver" for both; only the old driver is insufficient.
  EXPECT_EQ(no_gpu_reason(probe_of(cudaErrorInsufficientDriver, false, 0)),
            "no CUDA GPU available (no NVIDIA driver is installed: libcuda.so.1 cannot be loaded)");
  EXPECT_EQ(no_gpu_reason(probe_of(cudaErrorInsufficientDriver, true, 12020)),
            "no CUDA GPU available (the NVIDIA driver supports CUDA 12.2, older than this "
            "program's CUDA runtime 13.0: update the driver)");
  EXPECT_EQ(no_gpu_reason(probe_of(cudaErrorInsufficientDriver, true, 0)),
            "no CUDA GPU available (the NVIDIA driver is older than this program's CUDA runtime "
            "13.0: update the driver)");
}

TEST(NoGpuReason, NamesTheOtherCases) {
  EXPECT_EQ(no_gpu_reason(probe_of(cudaErrorNoDevice, true, 13000)),
            "no CUDA GPU available (the NVIDIA driver is installed but finds no CUDA device)");
  const GpuProbe other = probe_of(cudaErrorInitializationError, true, 13000);
  EXPECT_EQ(no_gpu_reason(other),
            "no CUDA GPU available (cudaGetDeviceCount: " + other.status_text + ")");
  GpuProbe none = probe_of(cudaSuccess, true, 13000);
  EXPECT_EQ(no_gpu_reason(none), "no CUDA GPU available (cudaGetDeviceCount found 0 devices)");
  none.device_count = 1;
  EXPECT_EQ(no_gpu_reason(none), std::nullopt);
}

TEST(GpuUnavailableReason, SaysWhatThisMachineLacks) {
  const std::optional<std::string> reason = gpu_unavailable_reason();
  if (!reason) GTEST_SKIP() << "a GPU is usable here, so no reason to check";
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver) dlclose(driver);
  EXPECT_EQ(reason->rfind("no CUDA GPU available (", 0), 0u) << *reason;
  EXPECT_EQ(reason->find("insufficient"), std::string::npos) << *reason;
  if (!driver) {
    EXPECT_NE(reason->find("no NVIDIA driver is installed"), std::string::npos) << *reason;
  } else {
    EXPECT_EQ(reason->find("no NVIDIA driver is installed"), std::string::npos) << *reason;
  }
}

TEST(DeviceSlug, LowerCaseWithSingleDashes) {
  EXPECT_EQ(device_slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(device_slug("  Tesla V100-SXM2-16GB "), "tesla-v100-sxm2-16gb");
  EXPECT_EQ(device_slug("NVIDIA GeForce RTX 3080"), "nvidia-geforce-rtx-3080");
}

TEST(VersionText, SplitsMajorAndMinor) {
  EXPECT_EQ(DeviceInfo::version_text(13000), "13.0");
  EXPECT_EQ(DeviceInfo::version_text(12040), "12.4");
}

TEST(Fp32Lanes, KnownArchitectures) {
  EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(3, 5), 0);
}

TEST(HalveUntilFits, KeepsASizeThatFits) {
  const auto bytes = [](long long n) { return static_cast<std::size_t>(n) * 4; };
  EXPECT_EQ(halve_until_fits(1 << 20, 1024, std::size_t{80} << 30, bytes), 1 << 20);
}

TEST(HalveUntilFits, HalvesUntilNineTenthsOfTheFreeMemoryHoldIt) {
  // 4 bytes a unit, 1000 bytes free: 900 usable, so 1024 -> 512 -> 256 -> 128 (512 bytes).
  const auto bytes = [](long long n) { return static_cast<std::size_t>(n) * 4; };
  EXPECT_EQ(halve_until_fits(1024, 1, 1000, bytes), 128);
  // 225 units is exactly 900 bytes: it fits; 226 does not, and halves to 113.
  EXPECT_EQ(halve_until_fits(225, 1, 1000, bytes), 225);
  EXPECT_EQ(halve_until_fits(226, 1, 1000, bytes), 113);
}

TEST(HalveUntilFits, StopsAtTheSmallestSizeEvenWhenThatDoesNotFit) {
  const auto bytes = [](long long n) { return static_cast<std::size_t>(n) * n; };
  EXPECT_EQ(halve_until_fits(4096, 1000, 1000, bytes), 1024);
  EXPECT_EQ(halve_until_fits(4096, 4096, 1000, bytes), 4096);
}

TEST(HalveUntilFits, FollowsACostThatGrowsFasterThanTheSize) {
  // Attention's scores grow with the square of the sequence: 4096 -> 2048 quarters the bytes.
  const auto bytes = [](long long s) { return static_cast<std::size_t>(s) * s * 10; };
  EXPECT_EQ(halve_until_fits(4096, 256, std::size_t{50} << 20, bytes), 2048);
}

}  // namespace
}  // namespace cudalabs
