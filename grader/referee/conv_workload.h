/// @file grader/referee/conv_workload.h
/// @brief Lab 08's timed and profiled problem: one coarsened convolution of a variant on a case's
/// shape, each set's input and filters fresh, each output checked against the CPU in double at
/// sampled elements (every edge class and random ones) and for being written everywhere.
#pragma once

#include "common/conv_types.h"
#include "grader/referee/workload.h"

#include <memory>
#include <string>

namespace grader::referee {

/// `factor` outputs per thread (the variant's, for the technique rule's facts).
std::unique_ptr<Workload> conv_workload(const std::string& variant,
                                        const cudalabs::ConvShape& shape, int factor);

}  // namespace grader::referee
