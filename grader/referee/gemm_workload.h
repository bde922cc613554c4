/// @file grader/referee/gemm_workload.h
/// @brief The GEMM labs' timed and profiled problem: C = A B (alpha 1, beta 0, tight leading
/// dimensions) of one variant, each input set drawn fresh, each output checked against cuBLAS in
/// the referee (every element, by the relative L2 error) and against the CPU in double (sampled
/// elements, by their own bounds).
#pragma once

#include "common/gemm_types.h"
#include "grader/labs/gemm_remote.h"
#include "grader/referee/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace grader::referee {

/// The Call of a variant's GEMM on operands: a GemmVariant of one list (gemm_remote.h), packed.
using GemmPack = Call (*)(const std::string& variant, const gemm_remote::GemmOperands& gemm);

/// The GEMM of `variant` on `shape`, each call packed by `pack`.
template <class Input>
std::unique_ptr<Workload> gemm_workload(GemmPack pack, const std::string& variant,
                                        const cudalabs::GemmShape& shape);

/// The GEMM of `variant` of the student's list `List` (gemm_remote::kVariants, kFp16Variants) on
/// `shape`.
template <class Input, const char* List = gemm_remote::kVariants>
std::unique_ptr<Workload> gemm_variant_workload(const std::string& variant,
                                                const cudalabs::GemmShape& shape) {
  GemmPack pack = [](const std::string& name, const gemm_remote::GemmOperands& gemm) {
    return remote::to_call(gemm_remote::GemmVariant<List>{.variant = name, .gemm = gemm});
  };
  return gemm_workload<Input>(pack, variant, shape);
}

/// The shape from a lab's problem flags: --size N, or --m M --n N --k K (default `fallback`).
cudalabs::GemmShape gemm_shape_from(const std::vector<std::string>& args,
                                    cudalabs::GemmShape fallback);

}  // namespace grader::referee
