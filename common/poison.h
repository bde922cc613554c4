/// @file poison.h
/// @brief NaN poisoning of outputs and the checks that go with it.
///
/// Outputs are filled with NaN before every checked run. An element the kernel never writes stays
/// NaN, so "never written" is told apart from "written wrong", and a TODO kernel that writes
/// nothing is reported as not implemented instead of passing on leftover data.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace cudalabs {

/// Fills `bytes` bytes at device address `data` with 0xFF: every float becomes a quiet NaN
/// (all bits set), whatever its alignment.
void poison_device(void* data, std::size_t bytes, cudaStream_t stream = nullptr);

/// True when `value` has the exact poison bit pattern (0xFFFFFFFF).
bool is_poison(float value);

/// A host array of `count` floats holding the poison pattern, as poison_device leaves device
/// memory.
std::vector<float> poisoned_host(std::size_t count);

/// Counts the elements outside the logical m x n region of a row-major matrix with leading
/// dimension `ld` (the padding at the end of each row) whose bits differ between `before` and
/// `after`. A kernel must never write there.
std::int64_t count_padding_changes(std::span<const float> before, std::span<const float> after,
                                   int m, int n, int ld);

}  // namespace cudalabs
