/// @file gemm_lab_driver.h
/// @brief The driver shared by every GEMM lab: verify each variant, time it against cuBLAS, print
/// one table.
///
/// A lab's main.cu is one call to gemm_lab_main with the lab's variant list, so the student's build
/// and the solution's build are verified and timed by the same code.
#pragma once

#include "common/gemm_variant.h"

#include <span>
#include <string>

namespace cudalabs {

/// What a GEMM lab hands to the driver. `Input` is the element type of A and B: float (labs 01-10)
/// or __nv_bfloat16 (lab 11).
template <class Input>
struct GemmLabOf {
  std::string id;     ///< "lab01": benchmark names and result files start with it
  std::string title;  ///< one line shown in --help and the header
  std::span<const GemmVariantOf<Input>> variants;  ///< the lab's variants, in teaching order
  bool show_launch_info =
      false;  ///< print the launch table (grid, block, registers, occupancy)
              ///< by default, as lab 04 does; --launch-info asks for it anywhere
};

/// The FP32 labs' driver input.
using GemmLab = GemmLabOf<float>;

/// Parses the flags, verifies every selected variant against the CPU reference (and cuBLAS for
/// large sizes), times each passing one and cuBLAS through Google Benchmark with CUDA-event manual
/// time, and prints one table: variant, ms, GFLOP/s, % of cuBLAS, error, check.
/// Flags: --m --n --k --size --alpha --beta --variant --repetitions --min-time --seed --verify-only
/// --list --launch-info --results-dir, plus Google Benchmark's --benchmark_* flags. Every variant's
/// benchmark carries the counters gflops, pct_cublas, registers and occupancy (theoretical, %).
/// BF16 labs (lab 11) are verified on BF16-rounded inputs with the tensor cores' tolerance, show
/// each result's error against the unrounded FP32 inputs beside it, and are timed against cuBLAS
/// in BF16 (cublas_bf16/..., the "% cuBLAS" reference) and in TF32 on the FP32 inputs
/// (cublas_tf32/...). A variant whose `unavailable` gives a reason (a GPU too old for it) is
/// reported as skipped with that reason and does not fail the run.
/// @return 0 when every selected variant passed; 1 when one failed or is not implemented yet, or
///         there is no GPU; 2 for a bad flag
int gemm_lab_main(const GemmLab& lab, int argc, char** argv);
/// The same for a BF16 lab.
int gemm_lab_main(const GemmLabOf<__nv_bfloat16>& lab, int argc, char** argv);

}  // namespace cudalabs
