/// @file grader/labs/lab08_remote.h
/// @brief Lab 08's remote function, declared once for the referee (lab08_proxy.cpp,
/// referee/conv_workload.cpp) and the runner (lab08_runner.cpp): grader/remote.h.
#pragma once

#include "common/conv_types.h"
#include "grader/remote.h"

#include <cstdint>
#include <string>
#include <utility>

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

/// The call of `variant` on `shape`, its operands the runner's buffers of these ids: what the
/// referee's proxy and its workload both send.
inline Conv conv_call(std::string variant, const cudalabs::ConvShape& shape, std::int64_t input,
                      std::int64_t filter, std::int64_t output) {
  return {.variant = std::move(variant),
          .n = shape.n,
          .h = shape.h,
          .w = shape.w,
          .c = shape.c,
          .f = shape.f,
          .r = shape.r,
          .s = shape.s,
          .input = {input},
          .filter = {filter},
          .output = {output}};
}

}  // namespace grader::lab08_remote
