/// @file grader/referee/gemm_workload.h
/// @brief The GEMM labs' timed and profiled problem: C = A B (alpha 1, beta 0, tight leading
/// dimensions) of one variant, each input set drawn fresh, each output checked against cuBLAS in
/// the referee (every element, by the relative L2 error) and against the CPU in double (sampled
/// elements, by their own bounds).
#pragma once

#include "common/gemm_types.h"
#include "grader/referee/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace grader::referee {

/// The GEMM of `variant` on `shape`, made by the runner's handler `function` ("gemm.variant").
template <class Input>
std::unique_ptr<Workload> gemm_workload(const std::string& function, const std::string& variant,
                                        const cudalabs::GemmShape& shape);

/// The shape from a lab's problem flags: --size N, or --m M --n N --k K (default `fallback`).
cudalabs::GemmShape gemm_shape_from(const std::vector<std::string>& args,
                                    cudalabs::GemmShape fallback);

}  // namespace grader::referee
