// A progress bar for long transfers on stderr: redrawn in place ('\r') on a terminal, at most
// ten times a second; nothing until the end when stderr is a file or a pipe, so logs get one
// summary line instead of hundreds of redraws.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_PROGRESS_BAR_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_PROGRESS_BAR_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/time/time.h"

namespace neuronserve::neuronctl {

class ProgressBar {
 public:
  // `label` names what moves ("uploading model.neff"); `done_note` is shown once everything is
  // sent while the other side is still working ("loading on the device").
  ProgressBar(std::ostream& err, bool terminal, std::string label, std::string done_note);

  // Called with the bytes done so far and the total.
  void Update(uint64_t done, uint64_t total);

  // Ends the bar: on a terminal the line is erased; then one summary line is printed
  // ("uploading model.neff: 27.0 MiB in 1.20 s (22.5 MiB/s)", timed to the last byte) when
  // `print_summary`.
  void Finish(bool print_summary);

  // The bar's text for `done` of `total` after `elapsed` (exposed for tests).
  static std::string Render(absl::string_view label, uint64_t done, uint64_t total,
                            absl::Duration elapsed);

 private:
  void Draw(const std::string& line);

  std::ostream& err_;
  const bool terminal_;
  const std::string label_;
  const std::string done_note_;
  const absl::Time start_;
  absl::Time last_draw_ = absl::InfinitePast();
  absl::Time sent_at_ = absl::InfiniteFuture();  // when `done` first reached the total
  uint64_t done_ = 0;
  size_t drawn_width_ = 0;  // characters of the line now on the terminal
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_PROGRESS_BAR_H_
