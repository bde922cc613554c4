// Lab 06 driver: verifies and times the double-buffered GEMM variants against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      {"lab06", "double buffering: global->register prefetch, and cp.async stages",
       lab06::variants()},
      argc, argv);
}
