#include "client/neuronctl/bench/progress_line.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace neuronserve::neuronctl {
namespace {

std::string Seconds(absl::Duration duration) {
  return absl::StrFormat("%.1fs", absl::ToDoubleSeconds(duration));
}

}  // namespace

std::string FormatProgress(size_t level, size_t levels, uint32_t concurrency,
                           const LevelProgress& progress) {
  std::string text = absl::StrCat("level ", level, "/", levels, " concurrency ", concurrency, ": ");
  if (progress.warming_up) {
    absl::StrAppend(&text, "warmup ", Seconds(progress.elapsed), "/", Seconds(progress.total));
  } else if (progress.target_requests > 0) {
    absl::StrAppend(&text, Seconds(progress.elapsed), ", ", progress.requests, "/",
                    progress.target_requests, " requests");
  } else {
    absl::StrAppend(&text, Seconds(progress.elapsed), "/", Seconds(progress.total), ", ",
                    progress.requests, " requests");
  }
  absl::StrAppend(&text, absl::StrFormat(", %.1f req/s", progress.current_rate));
  return text;
}

void ProgressLine::Draw(const std::string& text) {
  if (!enabled_) return;
  err_ << '\r' << text;
  if (text.size() < drawn_width_) err_ << std::string(drawn_width_ - text.size(), ' ');
  drawn_width_ = std::max(drawn_width_, text.size());
  err_ << std::flush;
}

void ProgressLine::Erase() {
  if (!enabled_ || drawn_width_ == 0) return;
  err_ << '\r' << std::string(drawn_width_, ' ') << '\r' << std::flush;
  drawn_width_ = 0;
}

}  // namespace neuronserve::neuronctl
