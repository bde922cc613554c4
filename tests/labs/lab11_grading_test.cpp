// Lab 11 grading tests: every rung on the standard shapes (tests/support/gemm_grading.h) with BF16
// inputs, plus the shapes where a tensor-core kernel can be right on the grid and wrong off it:
// leading dimensions that forbid 16-byte chunks (4 mod 8), a K that ends inside a chunk, operands
// 16 but not 32 bytes aligned (WMMA's direct loads), more tiles than SMs (the persistent grid's
// second round), and a C of few tiles over a long K, where `best` splits K on a Hopper GPU of 132
// SMs (best_plan.h; where K is short enough, the short-K kernel's slices, below, now pay): odd
// sizes whose last k-block and last slice are partial, operands TMA cannot read (repacked), C
// padded or misaligned (the sum's element path), beta != 0 (applied once, by the sum), and more
// units of (tile, slice) than SMs, so that a block walks units of two slices (each finishing in
// place where it is the last of its rows to arrive); and a small GEMM of one k-block whose B TMA
// cannot read (628 columns), which `best` runs in one launch, no copy first; and C of at most 8
// columns, which `best` runs on the few-columns kernel at the widest loads A's rows allow: K split
// in place with A off 16 bytes (2-byte loads), 16-byte loads of A and of B's 8-column rows with a
// last partial chunk, 4-byte loads of A's padded rows, 8-byte ones beside B's 9-value rows, odd
// rows, and K whole; and C of at most 8 rows, which `best` runs on the few-rows kernel reading B in
// place: N odd (B's rows 2 bytes apart), every pointer one element off with K odd, padded rows of
// A, B and C with 5 rows of the kernel's 8, 7 rows with A's and C's rows odd, K whole over 807
// blocks of columns, and 8 rows with B's rows odd; and a short K under a large C, which `best` runs
// on the short-K kernel (lab11_best_plan_test.cpp checks that it does): every operand off 16 bytes
// (element copies and stores), B's 16-byte copies and C's 128-bit stores with A's rows odd and the
// last tile of rows partial, K ending inside a step of 16 with padded rows, A's 16-byte copies over
// three chunks of K, the last partial, both operands' rows 4- and 8-byte aligned (4-byte copies)
// over four chunks, each buffer filled twice, the same from pointers 4 bytes off with K and N odd
// (a last copy of one value), and A's 16-byte copies beside B's 4-byte ones over eight chunks with
// C's rows odd; and a small C over a long K, which `best` runs on the short-K kernel with K cut
// into a cluster's slices summed through distributed shared memory (lab11_best_plan_test.cpp):
// operands 16 bytes a copy with beta applied once, A's and B's rows 2 bytes apart (element copies)
// with the last slice ending inside a chunk, every operand and C one element off, 4-byte copies of
// padded rows over one row of C's tiles, and 21 tiles of rows whose bands of the sum are uneven;
// a GEMM long enough that `best` copies A, 16-byte aligned but off 128-byte lines, onto lines
// first (best_plan.h: copy_a_to_lines_pays), C off 16 bytes; and tiles that fill a round of the SMs
// and part of another, where `best` keeps K whole in the whole rounds' tiles, writing C itself, and
// cuts the rest into slices summed in place (work_units.h: the tail split): M, N and K odd, every
// operand one element off (C's stores then a float each, the workspace's four), padded rows, and
// two whole rounds with C off 16 bytes.
#include "labs/11_tensor_cores/lab.h"
#include "tests/support/gemm_grading.h"

static const bool registered = cudalabs::testing::register_gemm_grading_tests(
    lab11::variants(), CUDALABS_BUILD_NAME,
    {
        {"ld_mod8_4_136x264x200", {{136, 264, 200}, 1.0f, 0.5f, {4, 4, 4}}},
        {"k_inside_chunk_130x136x70", {{130, 136, 70}, 1.0f, -0.5f, {2, 0, 0}}},
        {"offset16_200x264x128", {{200, 264, 128}, 1.0f, 0.5f, {0, 0, 0, 8}}},
        {"persistent_2100x3000x300", {{2100, 3000, 300}, 1.0f, 0.25f}},
        {"split_k_163x216x13649", {{163, 216, 13649}, 1.0f, 0.0f}},
        {"split_k_padded_77x131x6007", {{77, 131, 6007}, 1.0f, 0.5f, {3, 5, 7}}},
        {"split_k_misaligned_21x544x5224", {{21, 544, 5224}, -1.0f, 0.25f, {0, 0, 0, 1}}},
        {"split_k_odd_130x72x4100", {{130, 72, 4100}, 1.5f, -0.5f, {2, 0, 1}}},
        {"split_k_two_rounds_1x4753x9441", {{1, 4753, 9441}, 1.0f, 0.5f, {0, 3, 1}}},
        {"split_k_long_k_21x544x16384", {{21, 544, 16384}, 1.0f, 0.0f}},
        {"split_k_odd_n_222x565x11528", {{222, 565, 11528}, -0.5f, 0.5f}},
        {"one_launch_short_k_50x628x40", {{50, 628, 40}, 1.0f, 0.5f}},
        {"few_columns_split_287x1x8528", {{287, 1, 8528}, 1.0f, 0.5f, {0, 0, 0, 1}}},
        {"few_columns_vector_5043x8x2296", {{5043, 8, 2296}, 1.0f, 0.0f}},
        {"few_columns_padded_130x7x2255", {{130, 7, 2255}, -1.0f, 0.25f, {3, 1, 2}}},
        {"few_columns_whole_k_100x3x200", {{100, 3, 200}, 0.5f, 0.5f, {8, 5, 0}}},
        {"few_columns_8_byte_rows_2049x8x1500", {{2049, 8, 1500}, 1.0f, 0.5f, {0, 1, 0}}},
        {"few_columns_odd_rows_777x5x3333", {{777, 5, 3333}, -0.5f, 0.0f, {2, 0, 3}}},
        {"few_rows_odd_n_2x14073x1664", {{2, 14073, 1664}, 1.0f, 0.5f}},
        {"few_rows_offset_1x5001x3001", {{1, 5001, 3001}, 1.0f, -0.5f, {0, 0, 0, 1}}},
        {"few_rows_padded_5x6000x2500", {{5, 6000, 2500}, -1.0f, 0.25f, {3, 5, 2}}},
        {"few_rows_seven_7x3001x4100", {{7, 3001, 4100}, 0.5f, 0.0f, {1, 0, 1}}},
        {"few_rows_whole_k_1x200001x200", {{1, 200001, 200}, 1.0f, 0.5f, {0, 0, 0, 1}}},
        {"few_rows_eight_8x20000x1000", {{8, 20000, 1000}, 1.5f, 0.5f, {0, 1, 0}}},
        {"short_k_misaligned_539x6046x24", {{539, 6046, 24}, 1.0f, 0.5f, {0, 0, 0, 1}}},
        {"short_k_vector_b_2721x896x33", {{2721, 896, 33}, 1.0f, 0.0f}},
        {"short_k_odd_padded_9476x362x18", {{9476, 362, 18}, -1.0f, 0.25f, {3, 1, 2}}},
        {"short_k_three_chunks_749x811x80", {{749, 811, 80}, 0.5f, 0.5f}},
        {"short_k_word_copies_130x257x100", {{130, 257, 100}, 1.0f, -0.5f, {2, 3, 1}}},
        {"short_k_word_edges_1000x131x201", {{1000, 131, 201}, -0.5f, 0.25f, {1, 1, 2, 2}}},
        {"short_k_eight_chunks_2000x322x248", {{2000, 322, 248}, 1.0f, 0.5f, {0, 0, 1}}},
        {"cluster_slices_135x80x2312", {{135, 80, 2312}, 1.0f, 0.5f}},
        {"cluster_slices_odd_k_109x68x3133", {{109, 68, 3133}, 1.5f, -0.5f, {0, 3, 1}}},
        {"cluster_slices_misaligned_114x54x3896", {{114, 54, 3896}, 1.0f, 0.25f, {0, 0, 0, 1}}},
        {"cluster_slices_words_14x160x7088", {{14, 160, 7088}, -1.0f, 0.5f, {2, 2, 1}}},
        {"cluster_slices_bands_1299x100x1536", {{1299, 100, 1536}, 0.5f, 0.25f, {8, 4, 0}}},
        {"a_onto_lines_700x24000x1000", {{700, 24000, 1000}, 1.0f, 0.5f, {8, 0, 3}}},
        {"tail_split_odd_2101x2103x2001", {{2101, 2103, 2001}, 1.0f, 0.5f}},
        {"tail_split_one_round_misaligned_2384x793x6983",
         {{2384, 793, 6983}, -1.0f, 0.25f, {0, 0, 0, 1}}},
        {"tail_split_padded_2619x1644x1446", {{2619, 1644, 1446}, 0.5f, -0.5f, {3, 5, 7}}},
        {"tail_split_two_rounds_2100x2100x2000", {{2100, 2100, 2000}, 1.0f, 0.0f, {8, 8, 1}}},
    });
