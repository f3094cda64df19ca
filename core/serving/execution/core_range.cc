#include "core/serving/execution/core_range.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve {

std::string FormatCoreRange(const CoreRange& range) {
  return range.count <= 1 ? absl::StrCat(range.start)
                          : absl::StrCat(range.start, "-", range.start + range.count - 1);
}

std::string NameCoreRange(const CoreRange& range) {
  return absl::StrCat(range.count <= 1 ? "core " : "cores ", FormatCoreRange(range));
}

std::string FormatCoreRanges(absl::Span<const CoreRange> ranges) {
  std::vector<std::string> parts;
  parts.reserve(ranges.size());
  for (const CoreRange& range : ranges) parts.push_back(FormatCoreRange(range));
  return absl::StrJoin(parts, ", ");
}

std::string FormatCoreList(absl::Span<const uint32_t> cores) {
  std::vector<CoreRange> runs;
  for (uint32_t core : cores) {
    if (!runs.empty() && core == runs.back().start + runs.back().count) {
      ++runs.back().count;
    } else {
      runs.push_back(CoreRange{core, 1});
    }
  }
  return FormatCoreRanges(runs);
}

}  // namespace neuronserve
