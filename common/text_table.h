/// @file text_table.h
/// @brief A plain-text table with aligned columns, for the drivers' summaries.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace cudalabs {

/// Collects rows of cells and prints them with every column as wide as its widest cell. Columns
/// whose header is marked numeric are right-aligned.
class TextTable {
 public:
  /// One column: its header and whether its cells are right-aligned numbers.
  struct Column {
    std::string header;  ///< the header text
    bool numeric;        ///< right-align the cells
  };

  /// A table with these columns.
  explicit TextTable(std::vector<Column> columns);

  /// Appends a row; it must have one cell per column.
  void add_row(std::vector<std::string> cells);

  /// Prints the header, a rule and the rows.
  void print(std::ostream& out) const;

  /// Formats `value` with `decimals` digits after the point ("-" for NaN).
  static std::string number(double value, int decimals);
  /// Formats `value` in scientific notation with `decimals` digits after the point ("2.50e-07"; "-"
  /// for NaN).
  static std::string scientific(double value, int decimals = 2);

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace cudalabs
