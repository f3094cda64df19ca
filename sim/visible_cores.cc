#include "sim/visible_cores.h"

#include "sim/text_parse.h"

namespace neuronserve::nrtsim {
namespace {

// One comma-separated item: "N" or "A-B" with A <= B, appended if it continues the run.
bool AppendItem(std::string_view item, uint32_t core_count, std::vector<uint32_t>* cores) {
  size_t dash = item.find('-');
  std::optional<uint64_t> first = ParseUnsigned(item.substr(0, dash));
  std::optional<uint64_t> last =
      dash == std::string_view::npos ? first : ParseUnsigned(item.substr(dash + 1));
  if (!first || !last || *first > *last || *last >= core_count) return false;
  // Contiguous and ascending: the item starts right after the previous one's last core.
  if (!cores->empty() && *first != uint64_t{cores->back()} + 1) return false;
  for (uint64_t core = *first; core <= *last; ++core) {
    cores->push_back(static_cast<uint32_t>(core));
  }
  return true;
}

}  // namespace

std::optional<std::vector<uint32_t>> ParseVisibleCoreList(std::string_view text,
                                                          uint32_t core_count) {
  std::vector<uint32_t> cores;
  while (true) {
    size_t comma = text.find(',');
    if (!AppendItem(text.substr(0, comma), core_count, &cores)) return std::nullopt;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return cores;
}

}  // namespace neuronserve::nrtsim
