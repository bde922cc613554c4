/// @file labs/10_multi_gpu_dcgan/built_on.h
/// @brief The line both of lab 10's programs print about the earlier labs' kernels they run.
/// Header-only: each program links the precision backend of its own build (the student's lab 09
/// layers, or lab 11's in the finished programs), and lab 10's libraries must not pick one.
#pragma once

#include "common/earlier_labs.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/precision_backend.h"
#include "labs/10_multi_gpu_dcgan/lab.h"

#include <string>
#include <vector>

namespace lab10 {

/// "built on ...": lab 09's generator, lab 07's GEMM and the labs of the program's precisions, each
/// with the build it linked (cudalabs::earlier_labs_line).
inline std::string earlier_labs_line() {
  std::vector<cudalabs::EarlierLab> labs{{"09", cudalabs_lab09_kernels_build()},
                                         {"07", cudalabs_lab07_kernels_build()}};
  for (const cudalabs::EarlierLab& lab : lab09::precision_labs()) labs.push_back(lab);
  return cudalabs::earlier_labs_line(labs,
                                     std::string(cudalabs_lab10_kernels_build()) == "student");
}

}  // namespace lab10
