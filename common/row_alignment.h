/// @file common/row_alignment.h
/// @brief How wide the loads a matrix's rows allow are: host code, for launchers and tools alike.
#pragma once

#include <cstdint>

namespace cudalabs {

/// Elements of `Input` in 16 bytes: the unit of a vector load.
template <class Input>
inline constexpr int kChunkElements = 16 / static_cast<int>(sizeof(Input));

/// The widest load, a power of two bytes and at most 16, that every row of `matrix` (leading
/// dimension `ld`) allows from its start and from any 16 bytes on: the lowest set bit of its
/// address, of its row's bytes, and 16.
template <class Input>
int widest_row_load_bytes(const Input* matrix, int ld) {
  const std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(matrix) |
                              static_cast<std::uintptr_t>(ld) * sizeof(Input) | 16u;
  return static_cast<int>(bits & (~bits + 1u));
}

/// True when every row of `matrix` (leading dimension `ld`) can be read 16 bytes at a time.
template <class Input>
bool rows_allow_16_byte_loads(const Input* matrix, int ld) {
  return widest_row_load_bytes(matrix, ld) == 16;
}

}  // namespace cudalabs
