// Lab 11's FP16 rungs (wmma_fp16, mma_fp16): every GPU with tensor cores runs them (compute
// capability 7.5 has FP16 ones, not BF16). The standard shapes (tests/support/gemm_grading.h) with
// FP16 inputs, verified against the CPU reference on the FP16-rounded values with the FP16 tensor
// cores' bound, plus the shapes where a tiled tensor-core kernel can be right on the grid and wrong
// off it. A program of its own, beside lab11_grading_*: the rubric scores these rungs once it names
// them.
#include "labs/11_tensor_cores/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered = cudalabs::testing::register_gemm_grading_tests(
    lab11::fp16_variants(), CUDALABS_BUILD_NAME,
    {
        {"ld_mod8_4_136x264x200", {{136, 264, 200}, 1.0f, 0.5f, {4, 4, 4}}},
        {"k_inside_chunk_130x136x70", {{130, 136, 70}, 1.0f, -0.5f, {2, 0, 0}}},
        {"offset16_200x264x128", {{200, 264, 128}, 1.0f, 0.5f, {0, 0, 0, 8}}},
        {"two_stages_300x200x1000", {{300, 200, 1000}, 1.0f, 0.25f}},
    });
