// Lab 07 grading tests: every variant on the standard shapes (tests/support/gemm_grading.h), plus
// the scalar fallback for misaligned matrices and leading dimensions that are not multiples of 4.
#include "labs/07_wide_loads/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered =
    cudalabs::testing::register_gemm_grading_tests(lab07::variants(), CUDALABS_BUILD_NAME);
