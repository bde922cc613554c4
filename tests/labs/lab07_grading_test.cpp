// Lab 07 grading tests: every variant on the standard shapes (tests/support/gemm_grading.h), plus
// the scalar fallback for misaligned matrices and leading dimensions that are not multiples of 4,
// and one misaligned problem large enough that `best` copies A and B into aligned scratch first
// (repack_pays, tested on the CPU in lab07_best_plan_test.cpp).
#include "labs/07_wide_loads/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered = cudalabs::testing::register_gemm_grading_tests(
    lab07::variants(), CUDALABS_BUILD_NAME,
    {{"misaligned_repacked_2048x2048x2048", {{2048, 2048, 2048}, 1.0f, 0.5f, {1, 3, 2, 1}}}});
