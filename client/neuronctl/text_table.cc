#include "client/neuronctl/text_table.h"

#include <algorithm>

namespace neuronserve::neuronctl {

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::Render(std::ostream& out) const {
  std::vector<size_t> widths(header_.size());
  for (size_t column = 0; column < header_.size(); ++column) {
    widths[column] = header_[column].size();
    for (const std::vector<std::string>& row : rows_) {
      widths[column] = std::max(widths[column], row[column].size());
    }
  }
  auto render_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t column = 0; column < cells.size(); ++column) {
      line += cells[column];
      if (column + 1 < cells.size()) line.append(widths[column] - cells[column].size() + 2, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << "\n";
  };
  render_row(header_);
  for (const std::vector<std::string>& row : rows_) render_row(row);
}

}  // namespace neuronserve::neuronctl
