#include "common/text_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace cudalabs {
namespace {

TEST(TextTable, AlignsColumns) {
  TextTable table({{"name", false}, {"ms", true}});
  table.add_row({"naive", "12.5"});
  table.add_row({"tiled_coalesced", "3.25"});
  std::ostringstream out;
  table.print(out);
  EXPECT_EQ(out.str(),
            "name               ms\n"
            "---------------------\n"
            "naive            12.5\n"
            "tiled_coalesced  3.25\n");
}

TEST(TextTable, RejectsWrongCellCount) {
  TextTable table({{"a", false}});
  EXPECT_THROW(table.add_row({"1", "2"}), std::invalid_argument);
}

TEST(TextTable, FormatsNumbers) {
  EXPECT_EQ(TextTable::number(3.14159, 2), "3.14");
  EXPECT_EQ(TextTable::number(std::nan(""), 2), "-");
  EXPECT_EQ(TextTable::scientific(2.5e-7), "2.50e-07");
  EXPECT_EQ(TextTable::scientific(12345.0, 1), "1.2e+04");
  EXPECT_EQ(TextTable::scientific(std::nan("")), "-");
}

}  // namespace
}  // namespace cudalabs
