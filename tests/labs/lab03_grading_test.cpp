// Lab 03 grading tests: every variant on the standard shapes (tests/support/gemm_grading.h).
#include "labs/03_transposed_layouts/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered =
    cudalabs::testing::register_gemm_grading_tests(lab03::variants(), CUDALABS_BUILD_NAME);
