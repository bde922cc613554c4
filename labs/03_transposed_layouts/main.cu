// Lab 03 driver: verifies and times the four shared-memory layouts against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      {"lab03", "transposed shared-memory layouts RR, RC, CR, CC ([SGEMM-3080])",
       lab03::variants()},
      argc, argv);
}
