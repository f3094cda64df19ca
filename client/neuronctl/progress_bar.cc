#include "client/neuronctl/progress_bar.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "client/neuronctl/model_status_text.h"

namespace neuronserve::neuronctl {
namespace {

constexpr int kBarWidth = 30;
constexpr absl::Duration kRedrawInterval = absl::Milliseconds(100);

std::string RateText(uint64_t bytes, absl::Duration elapsed) {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  if (seconds <= 0) return "";
  return absl::StrCat(ByteSizeText(static_cast<uint64_t>(static_cast<double>(bytes) / seconds)),
                      "/s");
}

}  // namespace

ProgressBar::ProgressBar(std::ostream& err, bool terminal, std::string label,
                         std::string done_note)
    : err_(err),
      terminal_(terminal),
      label_(std::move(label)),
      done_note_(std::move(done_note)),
      start_(absl::Now()) {}

std::string ProgressBar::Render(absl::string_view label, uint64_t done, uint64_t total,
                                absl::Duration elapsed) {
  const double fraction =
      total == 0 ? 1.0 : static_cast<double>(std::min(done, total)) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string bar(static_cast<size_t>(filled), '=');
  if (filled < kBarWidth) {
    bar += '>';
    bar.append(static_cast<size_t>(kBarWidth - filled - 1), ' ');
  }
  return absl::StrFormat("%s [%s] %3d%%  %s / %s  %s", label, bar,
                         static_cast<int>(fraction * 100), ByteSizeText(done), ByteSizeText(total),
                         RateText(done, elapsed));
}

void ProgressBar::Update(uint64_t done, uint64_t total) {
  done_ = done;
  const absl::Time now = absl::Now();
  const bool complete = done >= total;
  if (complete && sent_at_ == absl::InfiniteFuture()) sent_at_ = now;
  if (!terminal_) return;
  if (!complete && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  std::string line = Render(label_, done, total, now - start_);
  if (complete && !done_note_.empty()) absl::StrAppend(&line, "  ", done_note_, "...");
  Draw(line);
}

void ProgressBar::Draw(const std::string& line) {
  // Pad with spaces over a longer previous line instead of relying on terminal escapes.
  err_ << "\r" << line;
  if (line.size() < drawn_width_) err_ << std::string(drawn_width_ - line.size(), ' ');
  err_.flush();
  drawn_width_ = std::max(drawn_width_, line.size());
}

void ProgressBar::Finish(bool print_summary) {
  if (terminal_ && drawn_width_ > 0) {
    err_ << "\r" << std::string(drawn_width_, ' ') << "\r";
    drawn_width_ = 0;
  }
  if (print_summary) {
    const absl::Duration elapsed = std::min(absl::Now(), sent_at_) - start_;
    err_ << absl::StrFormat("%s: %s in %.2f s", label_, ByteSizeText(done_),
                            absl::ToDoubleSeconds(elapsed));
    const std::string rate = RateText(done_, elapsed);
    if (!rate.empty()) err_ << " (" << rate << ")";
    err_ << "\n";
  }
  err_.flush();
}

}  // namespace neuronserve::neuronctl
