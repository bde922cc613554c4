/// @file device_fill.h
/// @brief Random inputs drawn on the GPU, the very values fill_uniform draws on the host.
///
/// A large problem's inputs are drawn where they are used instead of being drawn on the CPU and
/// copied over: element i is uniform_at(seed, i, lo, hi) (random_fill.h) on both sides, so the CPU
/// can still compute any element it checks (a sampled reference) without holding the whole input.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace cudalabs {

/// Writes data[i] = uniform_at(seed, i, lo, hi) for i < count, rounded to nearest to T (float,
/// __nv_bfloat16 or __half): bit for bit what fill_uniform and a host-side rounding give.
template <class T>
void fill_uniform_device(T* data, std::size_t count, std::uint64_t seed,
                         cudaStream_t stream = nullptr, float lo = -1.0f, float hi = 1.0f);

/// Writes out[i] = |in[i]| for i < count (in and out may be the same array).
template <class T>
void absolute_device(const T* in, T* out, std::size_t count, cudaStream_t stream = nullptr);

}  // namespace cudalabs
