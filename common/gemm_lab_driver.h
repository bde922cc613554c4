/// @file gemm_lab_driver.h
/// @brief The driver shared by every GEMM lab: verify each variant, time it against cuBLAS, print
/// one table.
///
/// A lab's main.cu is one call to gemm_lab_main with the lab's variant list, so the student's build
/// and the solution's build are verified and timed by the same code.
#pragma once

#include "common/build_report.h"
#include "common/gemm_variant.h"

#include <span>
#include <string>

namespace cudalabs {

/// What a GEMM lab hands to the driver. `Input` is the element type of A and B: float (labs 01-10),
/// __nv_bfloat16 or __half (lab 11).
template <class Input>
struct GemmLabOf {
  std::string id;     ///< "lab01": benchmark names and result files start with it
  std::string title;  ///< one line shown in --help and the header
  std::span<const GemmVariantOf<Input>> variants;  ///< the lab's variants, in teaching order
  bool show_launch_info =
      false;  ///< print the launch table (grid, block, registers, occupancy)
              ///< by default, as lab 04 does; --launch-info asks for it anywhere
  /// The features the lab teaches that need a newer GPU or newer code than some builds give it
  /// (cp.async, tensor-core instructions): the driver's first lines say which are missing here.
  std::span<const BuildFeature> features = {};
};

/// Lab 11: the BF16 ladder and the FP16 rungs (for GPUs whose tensor cores have no BF16) in one
/// run, one table per precision, each against cuBLAS at its own precision.
struct TensorCoreLab {
  std::string id;     ///< "lab11"
  std::string title;  ///< one line for --help and the header
  std::span<const GemmVariantOf<__nv_bfloat16>> bf16_variants;  ///< the BF16 ladder
  std::span<const GemmVariantOf<__half>> fp16_variants;         ///< the FP16 rungs
  std::span<const BuildFeature> features = {};                  ///< as GemmLabOf::features
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
/// (cublas_tf32/...); FP16 rungs likewise against cublas_fp16. A variant whose `unavailable` gives
/// a reason (a GPU too old for it, or a build without code for it) is reported as skipped with
/// that reason and does not fail the run. The first lines after the header say when the lab's
/// code was JIT-compiled from older PTX and which of `features` this GPU or build lacks
/// (common/build_report.h). Without --size, --m, --n, --k or --shapes the default problem shrinks
/// to fit the GPU's free memory, with one line saying so.
/// @return 0 when every selected variant passed; 1 when one failed or is not implemented yet, or
///         there is no GPU; 2 for a bad flag
int gemm_lab_main(const GemmLab& lab, int argc, char** argv);
/// The same for a BF16 lab.
int gemm_lab_main(const GemmLabOf<__nv_bfloat16>& lab, int argc, char** argv);
/// The same for lab 11's two precisions: BF16 variants, then FP16 ones, timed in one session.
int gemm_lab_main(const TensorCoreLab& lab, int argc, char** argv);

}  // namespace cudalabs
