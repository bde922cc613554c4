// Lab 05 grading tests: every variant on the standard shapes (tests/support/gemm_grading.h).
#include "labs/05_register_tiling/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered =
    cudalabs::testing::register_gemm_grading_tests(lab05::variants(), CUDALABS_BUILD_NAME);
