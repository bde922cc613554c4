#include "common/row_alignment.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace cudalabs {
namespace {

// A BF16-sized element at a given address: only the address's low bits matter.
using Element = std::uint16_t;
const Element* at(std::uintptr_t address) {
  return reinterpret_cast<const Element*>(address);
}

TEST(WidestRowLoadBytes, IsTheLowestAlignmentOfAddressAndRowAtMost16) {
  EXPECT_EQ(widest_row_load_bytes(at(4096), 8), 16);    // 16-byte rows
  EXPECT_EQ(widest_row_load_bytes(at(4096), 64), 16);   // never more than 16
  EXPECT_EQ(widest_row_load_bytes(at(4096), 1500), 8);  // 3000-byte rows
  EXPECT_EQ(widest_row_load_bytes(at(4096), 2258), 4);  // 4516-byte rows
  EXPECT_EQ(widest_row_load_bytes(at(4096), 2255), 2);  // odd rows
  EXPECT_EQ(widest_row_load_bytes(at(4098), 8), 2);     // aligned rows from a ragged start
  EXPECT_EQ(widest_row_load_bytes(at(4104), 64), 8);
  EXPECT_EQ(rows_allow_16_byte_loads(at(4096), 1500), false);
  EXPECT_EQ(rows_allow_16_byte_loads(at(4096), 1504), true);
}

}  // namespace
}  // namespace cudalabs
