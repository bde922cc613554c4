/// @file grader/labs/lab09_remote.h
/// @brief Lab 09's remote functions, declared once for the referee (lab09_proxy.cpp) and the
/// runner (lab09_runner.cpp): grader/remote.h.
#pragma once

#include "grader/remote.h"

#include <cstdint>
#include <string>

namespace grader::lab09_remote {

inline constexpr char kTconvNaive[] = "tconv.naive";
inline constexpr char kTconvBranchFree[] = "tconv.branch_free";
inline constexpr char kTconvSubpixel[] = "tconv.subpixel";

/// One of the student's transposed convolutions (`Function`: lab09::tconv_naive, tconv_branch_free,
/// tconv_subpixel): the shape (cudalabs::dcgan::TconvShape's five sizes), the epilogue's activation
/// (lab09::Activation's value) and the buffers input, filter, output, scale and shift.
template <const char* Function>
struct Tconv {
  static constexpr const char* kFunction = Function;
  int batch, height, width, in_channels, out_channels;
  int activation;
  remote::Buffer input, filter, output, scale, shift;
  static constexpr auto kWire =
      remote::wire(&Tconv::batch, &Tconv::height, &Tconv::width, &Tconv::in_channels,
                   &Tconv::out_channels, &Tconv::activation, &Tconv::input, &Tconv::filter,
                   &Tconv::output, &Tconv::scale, &Tconv::shift);
};
using TconvNaive = Tconv<kTconvNaive>;
using TconvBranchFree = Tconv<kTconvBranchFree>;
using TconvSubpixel = Tconv<kTconvSubpixel>;

/// lab09::lower_tconv_input: the shape's input lowered into `lowered`.
struct Lower {
  static constexpr const char* kFunction = "tconv.lower";
  int batch, height, width, in_channels, out_channels;
  remote::Buffer input, lowered;
  static constexpr auto kWire =
      remote::wire(&Lower::batch, &Lower::height, &Lower::width, &Lower::in_channels,
                   &Lower::out_channels, &Lower::input, &Lower::lowered);
};

/// The whole generator of the variant of that name (given code calling the student's functions):
/// `batch` images from the latents, on the default weights drawn from `weights_seed`.
struct Generator {
  static constexpr const char* kFunction = "generator.run";
  std::string variant;
  int batch;
  std::int64_t weights_seed;
  remote::Buffer latents, images;
  static constexpr auto kWire = remote::wire(&Generator::batch, &Generator::weights_seed,
                                             &Generator::latents, &Generator::images);
};

}  // namespace grader::lab09_remote
