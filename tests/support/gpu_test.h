/// @file tests/support/gpu_test.h
/// @brief Skipping GPU tests, with the reason, where no GPU is present.
#pragma once

#include "common/device_info.h"

#include <gtest/gtest.h>

/// Skips the current test, naming the reason, when no CUDA GPU can be used. GPU tests are reported
/// skipped (ctest: "Not Run (Skipped)"), never silently passed.
#define CUDALABS_REQUIRE_GPU()                                                \
  do {                                                                        \
    if (const auto cudalabs_no_gpu_ = ::cudalabs::gpu_unavailable_reason()) { \
      GTEST_SKIP() << *cudalabs_no_gpu_;                                      \
    }                                                                         \
  } while (0)
