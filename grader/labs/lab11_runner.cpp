// Lab 11's runner: a variant by name from either list (BF16, FP16), and `best` (the calls:
// gemm_remote.h).
#include "grader/runner/gemm_handlers.h"
#include "labs/11_tensor_cores/lab.h"

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      gemm_variant_handler<__nv_bfloat16, gemm_remote::kVariants, &lab11::variants>(),
      gemm_variant_handler<__half, gemm_remote::kFp16Variants, &lab11::fp16_variants>(),
      gemm_best_handler<__nv_bfloat16, &lab11::best_gemm>(),
  };
  return handlers;
}
