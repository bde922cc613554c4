// Lab 06's launches for the checks of every lab (common/launch_catalog.h): each variant at the
// GEMM problems every GEMM lab is checked at.
#include "common/launch_catalog.h"
#include "labs/06_double_buffering/lab.h"

namespace lab06 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  catalog.add_variants(variants(), cudalabs::catalog_gemm_shapes(), cudalabs::gemm_label);
}

}  // namespace lab06
