// The tiny lab's launches for the checks of every lab (common/launch_catalog.h).
#include "common/launch_catalog.h"
#include "labs/99_tiny/lab.h"

namespace lab99 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  catalog.add_variants(variants(), cudalabs::catalog_gemm_shapes(), cudalabs::gemm_label);
}

}  // namespace lab99
