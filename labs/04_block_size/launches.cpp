// Lab 04's launches for the checks of every lab (common/launch_catalog.h): each variant at the
// GEMM problems every GEMM lab is checked at.
#include "common/launch_catalog.h"
#include "labs/04_block_size/lab.h"

namespace lab04 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  catalog.add_variants(variants(), cudalabs::catalog_gemm_shapes(), cudalabs::gemm_label);
}

}  // namespace lab04
