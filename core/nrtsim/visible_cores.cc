#include "core/nrtsim/visible_cores.h"

#include <algorithm>

#include "core/nrtsim/text_parse.h"

namespace neuronserve::nrtsim {
namespace {

// One comma-separated item: "N" or "A-B" with A <= B.
bool AppendItem(std::string_view item, uint32_t physical_core_count, std::vector<uint32_t>* cores) {
  size_t dash = item.find('-');
  std::optional<uint64_t> first = ParseUnsigned(item.substr(0, dash));
  std::optional<uint64_t> last =
      dash == std::string_view::npos ? first : ParseUnsigned(item.substr(dash + 1));
  if (!first || !last || *first > *last || *last >= physical_core_count) return false;
  for (uint64_t core = *first; core <= *last; ++core) {
    cores->push_back(static_cast<uint32_t>(core));
  }
  return true;
}

}  // namespace

std::optional<std::vector<uint32_t>> ParseVisibleCoreList(std::string_view text,
                                                          uint32_t physical_core_count) {
  std::vector<uint32_t> cores;
  while (true) {
    size_t comma = text.find(',');
    if (!AppendItem(text.substr(0, comma), physical_core_count, &cores)) return std::nullopt;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(cores.begin(), cores.end());
  if (std::adjacent_find(cores.begin(), cores.end()) != cores.end()) return std::nullopt;
  return cores;
}

}  // namespace neuronserve::nrtsim
