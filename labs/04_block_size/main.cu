// Lab 04 driver: verifies and times the tiled GEMM at every block edge, and prints each launch's
// registers, shared memory, block limits and theoretical occupancy (common/occupancy).
#include "common/gemm_lab_driver.h"
#include "lab.h"

int main(int argc, char** argv) {
  cudalabs::GemmLab lab{"lab04",
                        "block size: the tiled GEMM with 4x4 to 32x32 blocks, and occupancy",
                        lab04::variants()};
  lab.show_launch_info = true;
  return cudalabs::gemm_lab_main(lab, argc, argv);
}
