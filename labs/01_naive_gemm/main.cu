// Lab 01 driver: verifies and times the naive GEMM variants against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      {"lab01", "naive GEMM, one thread per element of C (strided vs coalesced mapping)",
       lab01::variants()},
      argc, argv);
}
