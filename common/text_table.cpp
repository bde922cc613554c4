#include "common/text_table.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace cudalabs {

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size()) {
    throw std::invalid_argument("TextTable::add_row: " + std::to_string(cells.size()) +
                                " cells for " + std::to_string(columns_.size()) + " columns");
  }
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out) const {
  std::vector<std::size_t> widths;
  for (const Column& column : columns_) widths.push_back(column.header.size());
  for (const auto& row : rows_)
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());

  auto print_cells = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out << "  ";
      const bool right = columns_[i].numeric;
      out << (right ? std::right : std::left) << std::setw(static_cast<int>(widths[i])) << cells[i];
    }
    out << std::left << "\n";
  };
  std::vector<std::string> headers;
  for (const Column& column : columns_) headers.push_back(column.header);
  print_cells(headers);
  std::size_t total = 0;
  for (const std::size_t w : widths) total += w;
  out << std::string(total + 2 * (widths.size() - 1), '-') << "\n";
  for (const auto& row : rows_) print_cells(row);
}

std::string TextTable::number(double value, int decimals) {
  if (std::isnan(value)) return "-";
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

std::string TextTable::scientific(double value, int decimals) {
  if (std::isnan(value)) return "-";
  std::ostringstream text;
  text << std::scientific << std::setprecision(decimals) << value;
  return text.str();
}

}  // namespace cudalabs
