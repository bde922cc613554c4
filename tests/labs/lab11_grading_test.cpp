// Lab 11 grading tests: every rung on the standard shapes (tests/support/gemm_grading.h) with BF16
// inputs, plus the shapes where a tensor-core kernel can be right on the grid and wrong off it:
// leading dimensions that forbid 16-byte chunks (4 mod 8), a K that ends inside a chunk, operands
// 16 but not 32 bytes aligned (WMMA's direct loads), and more tiles than SMs (the persistent
// grid's second round).
#include "labs/11_tensor_cores/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered = cudalabs::testing::register_gemm_grading_tests(
    lab11::variants(), CUDALABS_BUILD_NAME,
    {
        {"ld_mod8_4_136x264x200", {{136, 264, 200}, 1.0f, 0.5f, {4, 4, 4}}},
        {"k_inside_chunk_130x136x70", {{130, 136, 70}, 1.0f, -0.5f, {2, 0, 0}}},
        {"offset16_200x264x128", {{200, 264, 128}, 1.0f, 0.5f, {0, 0, 0, 8}}},
        {"persistent_2100x3000x300", {{2100, 3000, 300}, 1.0f, 0.25f}},
    });
