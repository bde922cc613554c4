// Lab 02 driver: verifies and times the shared-memory tiled GEMM variants against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      {"lab02", "shared-memory tiling, with and without padding against bank conflicts",
       lab02::variants()},
      argc, argv);
}
