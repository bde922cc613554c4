/// @file grader/labs/lab08_remote.h
/// @brief Lab 08's remote function, declared once for the referee (lab08_proxy.cpp,
/// referee/conv_workload.cpp) and the runner (lab08_runner.cpp): grader/remote.h.
#pragma once

#include "grader/remote.h"

#include <string>

namespace grader::lab08_remote {

/// One convolution by the student's variant of that name: the shape (cudalabs::ConvShape's n, h,
/// w, c, f, r, s) on the buffers input, filter and output.
struct Conv {
  static constexpr const char* kFunction = "conv.variants";
  std::string variant;
  int n, h, w, c, f, r, s;
  remote::Buffer input, filter, output;
  static constexpr auto kWire =
      remote::wire(&Conv::n, &Conv::h, &Conv::w, &Conv::c, &Conv::f, &Conv::r, &Conv::s,
                   &Conv::input, &Conv::filter, &Conv::output);
};

}  // namespace grader::lab08_remote
