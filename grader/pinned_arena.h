/// @file grader/pinned_arena.h
/// @brief Pins each mapping of the operands' arena (cudaHostRegister), so that copies between it
/// and the device run at the bus's rate rather than through the driver's staging buffers. Where
/// pinning fails (a limit, a tool that refuses it) the copies stay pageable: slower, as correct.
#pragma once

#include "grader/arena.h"

#include <cuda_runtime.h>

#include <memory>

namespace grader {

inline void pin_arena(Arena& arena) {
  auto pinned = std::make_shared<bool>(false);
  arena.on_mapping(
      [pinned](std::uint8_t* data, std::size_t bytes) {
        *pinned = cudaHostRegister(data, bytes, cudaHostRegisterDefault) == cudaSuccess;
        if (!*pinned) (void)cudaGetLastError();
      },
      [pinned](std::uint8_t* data, std::size_t) {
        if (*pinned && cudaHostUnregister(data) != cudaSuccess) (void)cudaGetLastError();
        *pinned = false;
      });
}

}  // namespace grader
