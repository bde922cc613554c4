// The copy of misaligned operands (common/aligned_operands.cuh) on the GPU: every element offset
// of the matrix from a 16-byte boundary, odd and padded leading dimensions, rows of less than a
// chunk, a ragged last chunk, copies longer than the grid, and the matrix ending exactly where its
// allocation does (so that a load past its last element would be out of bounds under
// compute-sanitizer).
#include "common/aligned_operands.cuh"
#include "common/device_buffer.h"
#include "tests/support/gpu_test.h"

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace cudalabs {
namespace {

struct CopyCase {
  int rows, cols, ld;
};

constexpr CopyCase kCases[] = {{1, 1, 1},   {3, 5, 5},    {7, 13, 13},      {5, 24, 24},
                               {9, 37, 40}, {4, 64, 67},  {33, 1001, 1001}, {2, 8, 9},
                               {6, 16, 17}, {11, 71, 71}, {3, 200, 203}};

// Random bit patterns, none of them zero, so that a zero in the copy can only be padding.
template <class Input>
std::vector<Input> random_elements(std::size_t count, std::mt19937& random) {
  std::vector<Input> values(count);
  std::uniform_int_distribution<std::uint32_t> bits(1, 0x3f000000u);
  for (Input& v : values) {
    const std::uint32_t word = bits(random) | 1u;
    std::memcpy(static_cast<void*>(&v), &word, sizeof(Input));  // the low bytes
  }
  return values;
}

template <class Input>
bool same_bits(const Input& x, const Input& y) {
  return std::memcmp(&x, &y, sizeof(Input)) == 0;
}

// Copies the matrix at `offset` elements into a buffer that ends where the matrix does, as A and
// as B, with rows of one chunk and of 128 bytes (lab 11's B), and compares every element.
template <class Input>
void check_copies(const CopyCase& shape, int offset, std::mt19937& random) {
  constexpr int kChunk = kChunkElements<Input>;
  const std::size_t count =
      offset + static_cast<std::size_t>(shape.rows - 1) * shape.ld + shape.cols;
  const std::vector<Input> host = random_elements<Input>(count, random);
  DeviceBuffer<Input> buffer{std::span<const Input>(host)};
  const Input* matrix = buffer.data() + offset;
  for (const bool as_b : {false, true}) {
    for (const int row_elements : {kChunk, 128 / static_cast<int>(sizeof(Input))}) {
      SCOPED_TRACE(testing::Message()
                   << shape.rows << "x" << shape.cols << " ld " << shape.ld << " offset " << offset
                   << (as_b ? " as B" : " as A") << ", rows of " << row_elements);
      GemmArgsOf<Input> args;
      args.m = as_b ? 1 : shape.rows;
      args.k = as_b ? shape.rows : shape.cols;
      args.n = as_b ? shape.cols : 1;
      (as_b ? args.b : args.a) = matrix;
      (as_b ? args.ldb : args.lda) = shape.ld;
      const AlignedOperands<Input> aligned(args, !as_b, as_b, nullptr, "aligned_operands_test",
                                           row_elements);
      const Input* packed = as_b ? aligned.args().b : aligned.args().a;
      const int packed_ld = as_b ? aligned.args().ldb : aligned.args().lda;
      ASSERT_EQ(packed_ld % row_elements, 0);
      ASSERT_GE(packed_ld, shape.cols);
      const int written = (shape.cols + kChunk - 1) / kChunk * kChunk;  // whole chunks a row
      // Only the chunks the copy writes: the rest of its padded rows is never read.
      std::vector<Input> copy(static_cast<std::size_t>(shape.rows) * written);
      CUDA_CHECK(cudaMemcpy2D(copy.data(), written * sizeof(Input), packed,
                              packed_ld * sizeof(Input), written * sizeof(Input), shape.rows,
                              cudaMemcpyDeviceToHost));
      for (int r = 0; r < shape.rows; ++r) {
        for (int c = 0; c < written; ++c) {
          const Input& got = copy[static_cast<std::size_t>(r) * written + c];
          const Input expected = c < shape.cols
                                     ? host[offset + static_cast<std::size_t>(r) * shape.ld + c]
                                     : Input(0.0f);
          ASSERT_TRUE(same_bits(got, expected)) << "element (" << r << ", " << c << ")";
        }
      }
    }
  }
}

template <class Input>
void check_every_offset() {
  std::mt19937 random(2024);
  for (const CopyCase& shape : kCases) {
    for (int offset = 0; offset < kChunkElements<Input>; ++offset) {
      check_copies<Input>(shape, offset, random);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

// A copy of more chunks than the grid has threads, four times over: each thread's chunks ahead and
// the grid's second lap.
template <class Input>
void check_long_copy() {
  std::mt19937 random(7);
  for (const int offset : {1, kChunkElements<Input> - 1}) {
    check_copies<Input>({4500, 1001, 1003}, offset, random);
    if (testing::Test::HasFatalFailure()) return;
  }
}

TEST(AlignedOperands, CopiesBf16RowsAtEveryOffset) {
  CUDALABS_REQUIRE_GPU();
  check_every_offset<__nv_bfloat16>();
}

TEST(AlignedOperands, CopiesFloatRowsAtEveryOffset) {
  CUDALABS_REQUIRE_GPU();
  check_every_offset<float>();
}

TEST(AlignedOperands, CopiesMoreChunksThanTheGridHasThreads) {
  CUDALABS_REQUIRE_GPU();
  check_long_copy<__nv_bfloat16>();
  check_long_copy<float>();
}

}  // namespace
}  // namespace cudalabs
