// Lab 02 grading tests: every tiled GEMM variant on the standard shapes
// (tests/support/gemm_grading.h).
#include "labs/02_smem_tiling/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered =
    cudalabs::testing::register_gemm_grading_tests(lab02::variants(), CUDALABS_BUILD_NAME);
