// Lab 11's runner: a variant by name from either list (BF16, FP16), and `best`.
#include "grader/runner/gemm_handlers.h"
#include "labs/11_tensor_cores/lab.h"

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      {"gemm.variants", &run_gemm_variant<__nv_bfloat16, &lab11::variants>},
      {"gemm.fp16_variants", &run_gemm_variant<__half, &lab11::fp16_variants>},
      {"gemm.best", &run_gemm_best<__nv_bfloat16, &lab11::best_gemm>},
  };
  return handlers;
}
