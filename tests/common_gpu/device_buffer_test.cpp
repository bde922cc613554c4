// Buffers, poisoning and the event timer on the GPU.
#include "common/device_buffer.h"
#include "common/event_timer.h"
#include "common/pinned_buffer.h"
#include "common/poison.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace cudalabs {
namespace {

TEST(DeviceBuffer, RoundTripsAndMoves) {
  CUDALABS_REQUIRE_GPU();
  std::vector<float> host(1000);
  std::iota(host.begin(), host.end(), 1.0f);
  DeviceBuffer<float> buffer{std::span<const float>(host)};
  EXPECT_EQ(buffer.size(), 1000u);
  EXPECT_EQ(buffer.bytes(), 4000u);
  DeviceBuffer<float> moved = std::move(buffer);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(moved.to_host(), host);
  std::vector<float> wrong_size(3);
  EXPECT_THROW(moved.copy_to(wrong_size), std::invalid_argument);
}

TEST(PinnedBuffer, AllocatesAndMoves) {
  CUDALABS_REQUIRE_GPU();
  PinnedBuffer<float> pinned(16);
  pinned.span()[15] = 2.0f;
  PinnedBuffer<float> moved = std::move(pinned);
  EXPECT_EQ(pinned.data(), nullptr);
  EXPECT_EQ(moved.span()[15], 2.0f);
}

TEST(PoisonDevice, FillsWithThePoisonPattern) {
  CUDALABS_REQUIRE_GPU();
  DeviceBuffer<float> buffer(257);
  poison_device(buffer.data(), buffer.bytes());
  for (const float v : buffer.to_host()) ASSERT_TRUE(is_poison(v));
}

TEST(EventTimer, TimesAndTakesMedians) {
  CUDALABS_REQUIRE_GPU();
  DeviceBuffer<float> buffer(1 << 20);
  const std::vector<double> times = time_each_run_ms(
      [&](cudaStream_t stream, int) {
        CUDA_CHECK(cudaMemsetAsync(buffer.data(), 0, buffer.bytes(), stream));
      },
      1, 5);
  ASSERT_EQ(times.size(), 5u);
  for (const double t : times) EXPECT_GT(t, 0.0);
  EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(CudaCheck, NamesTheFailedCall) {
  CUDALABS_REQUIRE_GPU();
  try {
    CUDA_CHECK(cudaMemcpy(nullptr, reinterpret_cast<void*>(1), 4, cudaMemcpyDeviceToHost));
    FAIL() << "an invalid copy succeeded";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cudaMemcpy(nullptr"), std::string::npos) << message;
    EXPECT_NE(message.find("device_buffer_test.cpp"), std::string::npos) << message;
  }
  (void)cudaGetLastError();
}

}  // namespace
}  // namespace cudalabs
