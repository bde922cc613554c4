/// @file grader/labs/lab00_remote.h
/// @brief Lab 00's remote functions, declared once for the referee (lab00_proxy.cpp) and the
/// runner (lab00_runner.cpp): grader/remote.h.
#pragma once

#include "grader/remote.h"

#include <cstdint>

namespace grader::lab00_remote {

/// lab00::launch_copy: `count` floats from src to dst.
struct Copy {
  static constexpr const char* kFunction = "lab00.copy";
  std::int64_t count;
  remote::Buffer src, dst;
  static constexpr auto kWire = remote::wire(&Copy::count, &Copy::src, &Copy::dst);
};

/// lab00::launch_fma: `threads` chains of `iterations` FMAs, one result each in out.
struct Fma {
  static constexpr const char* kFunction = "lab00.fma";
  std::int64_t threads;
  int iterations;
  remote::Buffer out;
  static constexpr auto kWire = remote::wire(&Fma::threads, &Fma::iterations, &Fma::out);
};

}  // namespace grader::lab00_remote
