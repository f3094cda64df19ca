#include "server/logs/line_framer.h"

#include <algorithm>

namespace neuronserve {

LineFramer::LineFramer(size_t max_line_bytes)
    : max_line_bytes_(std::max<size_t>(max_line_bytes, 4)) {}

size_t LineFramer::CutLength(std::string_view text) const {
  // Back off to the start of a UTF-8 sequence (at most 3 continuation bytes), so that both
  // pieces stay valid text; give up on bytes that are not UTF-8 at all.
  size_t cut = max_line_bytes_;
  for (int backed = 0; backed < 3 && cut > 1; ++backed) {
    if ((static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80) return cut;
    --cut;
  }
  return (static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80 ? cut : max_line_bytes_;
}

void LineFramer::EmitLine(std::string_view line, Emit emit) {
  while (line.size() > max_line_bytes_) {
    const size_t cut = CutLength(line);
    emit(line.substr(0, cut), /*continued=*/true);
    continuing_ = true;
    line.remove_prefix(cut);
  }
  // An empty rest still ends the line a continued piece began.
  if (!line.empty() || continuing_) emit(line, /*continued=*/false);
  continuing_ = false;
}

void LineFramer::Append(std::string_view bytes, Emit emit) {
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      pending_.append(bytes);
      break;
    }
    std::string_view line = bytes.substr(0, newline);
    bytes.remove_prefix(newline + 1);
    if (!pending_.empty()) {
      pending_.append(line);
      line = pending_;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    EmitLine(line, emit);
    pending_.clear();
  }
  // A line still open: emit whole pieces now, so that pending_ stays within the limit.
  while (pending_.size() > max_line_bytes_) {
    const size_t cut = CutLength(pending_);
    emit(std::string_view(pending_).substr(0, cut), /*continued=*/true);
    continuing_ = true;
    pending_.erase(0, cut);
  }
}

void LineFramer::Finish(Emit emit) {
  std::string_view rest = pending_;
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  EmitLine(rest, emit);
  pending_.clear();
}

}  // namespace neuronserve
