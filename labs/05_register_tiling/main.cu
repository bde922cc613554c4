// Lab 05 driver: verifies and times the register-tiled GEMM variants against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      {"lab05", "register tiling: 1-D (8 outputs per thread) and 2-D (8 x 8 outputs per thread)",
       lab05::variants()},
      argc, argv);
}
