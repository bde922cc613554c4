// The tiny lab's grading tests: its variant on the standard shapes (tests/support/gemm_grading.h).
#include "labs/99_tiny/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered =
    cudalabs::testing::register_gemm_grading_tests(lab99::variants(), CUDALABS_BUILD_NAME);
