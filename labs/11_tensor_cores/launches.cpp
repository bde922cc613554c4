// Lab 11's launches for the checks of every lab (common/launch_catalog.h): every BF16 and FP16 rung
// at the GEMM problems every GEMM lab is checked at.
#include "common/launch_catalog.h"
#include "labs/11_tensor_cores/lab.h"

namespace lab11 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  catalog.add_variants(variants(), cudalabs::catalog_gemm_shapes(), cudalabs::gemm_label);
  catalog.add_variants(fp16_variants(), cudalabs::catalog_gemm_shapes(), cudalabs::gemm_label);
}

}  // namespace lab11
