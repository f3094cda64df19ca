// Aligned columns for human output, in the style of kubectl: an upper-case header row, then one
// row per item, each column as wide as its widest cell, separated by two spaces.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_TEXT_TABLE_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_TEXT_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace neuronserve::neuronctl {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);

  // A row with fewer cells than the header is padded with empty ones; more is a programming
  // error and the extra cells are dropped.
  void AddRow(std::vector<std::string> cells);

  // Writes the header and every row; trailing spaces are trimmed from each line.
  void Render(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_TEXT_TABLE_H_
