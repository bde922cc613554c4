#include "common/row_alignment.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace cudalabs {
namespace {

// A matrix of `Element`s at a given address: only the address's low bits matter.
template <class Element>
const Element* at(std::uintptr_t address) {
  return reinterpret_cast<const Element*>(address);
}

TEST(WidestRowLoadBytes, IsTheLowestAlignmentOfAddressAndRowAtMost16) {
  using Bf16 = std::uint16_t;                                 // BF16-sized
  EXPECT_EQ(widest_row_load_bytes(at<Bf16>(4096), 8), 16);    // 16-byte rows
  EXPECT_EQ(widest_row_load_bytes(at<Bf16>(4096), 64), 16);   // never more than 16
  EXPECT_EQ(widest_row_load_bytes(at<Bf16>(4096), 1500), 8);  // 3000-byte rows
  EXPECT_EQ(widest_row_load_bytes(at<Bf16>(4096), 2258), 4);  // 4516-byte rows
  EXPECT_EQ(widest_row_load_bytes(at<Bf16>(4096), 2255), 2);  // odd rows
  EXPECT_EQ(widest_row_load_bytes(at<Bf16>(4098), 8), 2);     // aligned rows from a ragged start
  EXPECT_EQ(widest_row_load_bytes(at<Bf16>(4104), 64), 8);
  EXPECT_EQ(widest_row_load_bytes(at<float>(4096), 6), 8);  // 24-byte rows of FP32
  EXPECT_EQ(widest_row_load_bytes(at<float>(4100), 4), 4);
}

// 16-byte loads exactly where the address and every row's bytes are multiples of 16, and the widest
// load the largest power of two dividing both, for BF16- and FP32-sized elements, at every address
// and leading dimension up to a few chunks.
template <class Element>
void expect_16_byte_rows_as_defined() {
  for (std::uintptr_t address = 4096; address < 4096 + 64; address += sizeof(Element)) {
    for (int ld = 1; ld <= 64; ++ld) {
      const bool expected = address % 16 == 0 && ld * sizeof(Element) % 16 == 0;
      EXPECT_EQ(rows_allow_16_byte_loads(at<Element>(address), ld), expected)
          << "address " << address << ", ld " << ld;
      const int widest = widest_row_load_bytes(at<Element>(address), ld);
      EXPECT_EQ(address % widest, 0u) << "address " << address << ", ld " << ld;
      EXPECT_EQ(ld * sizeof(Element) % widest, 0u) << "address " << address << ", ld " << ld;
      EXPECT_EQ(widest == 16, expected) << "address " << address << ", ld " << ld;
      if (widest < 16)  // and no wider: twice it divides one of them not
        EXPECT_NE((address | ld * sizeof(Element)) % (2 * widest), 0u)
            << "address " << address << ", ld " << ld;
    }
  }
}

TEST(RowsAllow16ByteLoads, WhereAddressAndRowBytesAreMultiplesOf16) {
  expect_16_byte_rows_as_defined<std::uint16_t>();
  expect_16_byte_rows_as_defined<float>();
}

}  // namespace
}  // namespace cudalabs
