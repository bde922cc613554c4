// Lab 07 driver: verifies and times the wide-load, warp-tiled GEMM variants against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      {"lab07", "128-bit loads, shared->register prefetch, warp tiling: the final SGEMM",
       lab07::variants()},
      argc, argv);
}
