// Lab 06 driver: verifies and times the double-buffered GEMM variants against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

namespace {

// cp.async needs compute capability 8.0 and code built for it: the first lines say when it is
// missing.
constexpr cudalabs::BuildFeature kFeatures[] = {
    {"cp.async", 80, "cp_async", "copies through registers instead (no overlap of copy and math)"},
};

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      {"lab06", "double buffering: global->register prefetch, and cp.async stages",
       lab06::variants(), false, kFeatures},
      argc, argv);
}
