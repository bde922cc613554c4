/// @file common/row_alignment.h
/// @brief Whether a matrix's rows allow 16-byte loads: host code, for launchers and tools alike.
#pragma once

#include <cstdint>

namespace cudalabs {

/// Elements of `Input` in 16 bytes: the unit of a vector load.
template <class Input>
inline constexpr int kChunkElements = 16 / static_cast<int>(sizeof(Input));

/// True when every row of `matrix` (leading dimension `ld`) can be read 16 bytes at a time.
template <class Input>
bool rows_allow_16_byte_loads(const Input* matrix, int ld) {
  return reinterpret_cast<std::uintptr_t>(matrix) % 16 == 0 && ld % kChunkElements<Input> == 0;
}

}  // namespace cudalabs
