// Lab 07 driver: verifies and times the wide-load, warp-tiled GEMM variants against cuBLAS.
#include "common/gemm_lab_driver.h"
#include "lab.h"

namespace {

// cp.async needs compute capability 8.0 and code built for it: the first lines say when it is
// missing.
constexpr cudalabs::BuildFeature kFeatures[] = {
    {"cp.async", 80, "async_128x256", "copies through registers instead"},
};

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      {"lab07", "128-bit loads, shared->register prefetch, warp tiling: the final SGEMM",
       lab07::variants(), false, kFeatures},
      argc, argv);
}
