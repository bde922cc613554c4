// Lab 04 grading tests: every variant on the standard shapes (tests/support/gemm_grading.h).
#include "labs/04_block_size/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered =
    cudalabs::testing::register_gemm_grading_tests(lab04::variants(), CUDALABS_BUILD_NAME);
