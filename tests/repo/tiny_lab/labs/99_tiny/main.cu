// The tiny lab's driver: verifies and times its variant against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main({"lab99", "a tiny GEMM lab", lab99::variants()}, argc, argv);
}
