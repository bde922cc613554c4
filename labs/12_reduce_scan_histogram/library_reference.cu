#include "library_reference.h"

#include "common/cuda_check.h"

#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

namespace lab12_library {

namespace {

constexpr int kLevels = 257;  // 256 bins of width 1 over [0, 256)

}  // namespace

std::size_t cub_sum_workspace(std::size_t count) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                    static_cast<float*>(nullptr), count));
  return bytes;
}

void cub_sum(const float* input, std::size_t count, float* sum, void* workspace,
             std::size_t workspace_bytes, cudaStream_t stream) {
  CUDA_CHECK(cub::DeviceReduce::Sum(workspace, workspace_bytes, input, sum, count, stream));
}

float thrust_sum(const float* input, std::size_t count, cudaStream_t stream) {
  const thrust::device_ptr<const float> first = thrust::device_pointer_cast(input);
  return thrust::reduce(thrust::cuda::par.on(stream), first, first + count, 0.0f);
}

std::size_t cub_scan_workspace(std::size_t count) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes,
                                           static_cast<const std::uint32_t*>(nullptr),
                                           static_cast<std::uint32_t*>(nullptr), count));
  return bytes;
}

void cub_inclusive_scan(const std::uint32_t* input, std::uint32_t* output, std::size_t count,
                        void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  CUDA_CHECK(
      cub::DeviceScan::InclusiveSum(workspace, workspace_bytes, input, output, count, stream));
}

void thrust_inclusive_scan(const std::uint32_t* input, std::uint32_t* output, std::size_t count,
                           cudaStream_t stream) {
  const thrust::device_ptr<const std::uint32_t> first = thrust::device_pointer_cast(input);
  thrust::inclusive_scan(thrust::cuda::par_nosync.on(stream), first, first + count,
                         thrust::device_pointer_cast(output));
}

std::size_t cub_histogram_workspace(std::size_t count) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceHistogram::HistogramEven(
      nullptr, bytes, static_cast<const std::uint8_t*>(nullptr),
      static_cast<std::uint32_t*>(nullptr), kLevels, 0, 256, count));
  return bytes;
}

void cub_histogram(const std::uint8_t* input, std::size_t count, std::uint32_t* bins,
                   void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  CUDA_CHECK(cub::DeviceHistogram::HistogramEven(workspace, workspace_bytes, input, bins, kLevels,
                                                 0, 256, count, stream));
}

}  // namespace lab12_library
