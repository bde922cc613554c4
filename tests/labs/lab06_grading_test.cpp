// Lab 06 grading tests: every variant on the standard shapes (tests/support/gemm_grading.h).
#include "labs/06_double_buffering/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered =
    cudalabs::testing::register_gemm_grading_tests(lab06::variants(), CUDALABS_BUILD_NAME);
