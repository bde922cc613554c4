/// @file labs/12_reduce_scan_histogram/library_reference.h
/// @brief What lab 12 is timed against, in the same process: CUB's device-wide sum, inclusive scan
/// and histogram (the CUDA toolkit's own), and Thrust's reduce and inclusive_scan as most programs
/// call them. Built once into the drivers (a library of its own: the CUB kernels are not the
/// student's).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace lab12_library {

/// Bytes of temporary storage cub::DeviceReduce::Sum needs for `count` floats.
std::size_t cub_sum_workspace(std::size_t count);
/// *sum = the sum of input[0 .. count) with cub::DeviceReduce::Sum, enqueued on `stream`.
void cub_sum(const float* input, std::size_t count, float* sum, void* workspace,
             std::size_t workspace_bytes, cudaStream_t stream);

/// The sum with thrust::reduce: it returns the sum to the host, so the call waits for the GPU and
/// copies the result back (and allocates its temporary storage on every call).
float thrust_sum(const float* input, std::size_t count, cudaStream_t stream);

/// Bytes of temporary storage cub::DeviceScan::InclusiveSum needs for `count` values.
std::size_t cub_scan_workspace(std::size_t count);
/// The inclusive scan with cub::DeviceScan::InclusiveSum, enqueued on `stream`.
void cub_inclusive_scan(const std::uint32_t* input, std::uint32_t* output, std::size_t count,
                        void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

/// The inclusive scan with thrust::inclusive_scan (temporary storage allocated on every call).
void thrust_inclusive_scan(const std::uint32_t* input, std::uint32_t* output, std::size_t count,
                           cudaStream_t stream);

/// Bytes of temporary storage cub::DeviceHistogram::HistogramEven needs for `count` bytes.
std::size_t cub_histogram_workspace(std::size_t count);
/// The 256-bin histogram of `count` bytes with cub::DeviceHistogram::HistogramEven (257 levels
/// 0 .. 256), enqueued on `stream`.
void cub_histogram(const std::uint8_t* input, std::size_t count, std::uint32_t* bins,
                   void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace lab12_library
