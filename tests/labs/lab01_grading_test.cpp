// Lab 01 grading tests: every naive GEMM variant on the standard shapes
// (tests/support/gemm_grading.h).
#include "labs/01_naive_gemm/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered =
    cudalabs::testing::register_gemm_grading_tests(lab01::variants(), CUDALABS_BUILD_NAME);
