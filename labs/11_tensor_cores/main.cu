// Lab 11 driver: verifies and times the tensor-core GEMM rungs against cuBLAS in BF16 and TF32.
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      cudalabs::GemmLabOf<__nv_bfloat16>{
          "lab11", "tensor cores: WMMA, mma.sync, Hopper's wgmma and TMA (BF16 in, FP32 sums)",
          lab11::variants()},
      argc, argv);
}
