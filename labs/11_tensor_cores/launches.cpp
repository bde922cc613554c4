// Lab 11's launches for the checks of every lab (common/launch_catalog.h): every BF16 and FP16 rung
// at the GEMM problems every GEMM lab is checked at, and the kernel that sums `best`'s slices of K
// at C's of the sizes `best` splits (a few tiles over a long K) and a large one.
#include "common/launch_catalog.h"
#include "labs/11_tensor_cores/lab.h"

namespace lab11 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  catalog.add_variants(variants(), cudalabs::catalog_gemm_shapes(), cudalabs::gemm_label);
  catalog.add_variants(fp16_variants(), cudalabs::catalog_gemm_shapes(), cudalabs::gemm_label);
  for (const cudalabs::GemmShape shape :
       {cudalabs::GemmShape{163, 216, 13649}, cudalabs::GemmShape{21, 544, 5224},
        cudalabs::GemmShape{1, 1, 100000}, cudalabs::GemmShape{4096, 4096, 4096}}) {
    catalog.add("best_slice_sums", cudalabs::gemm_label(shape),
                [shape] { return describe_slice_sums(shape); });
  }
}

}  // namespace lab11
