/// @file labs/08_coarsening/lab.h
/// @brief Lab 08: thread coarsening of a shared-memory convolution ([COARSEN-KGP], Tables 3.1
/// and 3.2).
#pragma once

#include "common/conv_types.h"
#include "common/gemm_variant.h"

#include <cuda_runtime.h>

#include <span>

/// Lab 08: thread coarsening.
namespace lab08 {

/// One coarsened kernel: `factor` outputs per thread, a block of ceil(tile outputs / factor)
/// threads.
struct ConvVariant {
  const char* name;     ///< "coarsen1" ... "coarsen32": also the benchmark name, `lab08/NAME/CASE`
  const char* summary;  ///< one line for --list
  int factor;           ///< outputs computed by each thread
  /// Validates (std::invalid_argument naming the argument) and enqueues the convolution on
  /// `stream`.
  void (*launch)(const cudalabs::ConvArgs& args, cudaStream_t stream);
  /// The launch configuration for a shape, for the occupancy calculator; launches nothing.
  cudalabs::KernelLaunch (*describe)(const cudalabs::ConvShape& shape);
};

/// The variants, factors 1, 2, 4, 8, 16 and 32.
std::span<const ConvVariant> variants();

/// One of [COARSEN-KGP]'s two problems.
struct SeedCase {
  const char* name;           ///< "case1" or "case2", as in the benchmark names
  const char* description;    ///< where the seed states it
  cudalabs::ConvShape shape;  ///< the problem's sizes
};

/// Case I: batch 1024, 31 x 31 x 5 images, two 3 x 3 filters ([COARSEN-KGP], Table 3.1).
/// Case II: batch 1024, 45 x 45 x 5 images, two 15 x 15 filters ([COARSEN-KGP], Table 3.2).
inline constexpr SeedCase kSeedCases[] = {
    {"case1", "[COARSEN-KGP] case I (Table 3.1)", {1024, 31, 31, 5, 2, 3, 3}},
    {"case2", "[COARSEN-KGP] case II (Table 3.2)", {1024, 45, 45, 5, 2, 15, 15}},
};

}  // namespace lab08
