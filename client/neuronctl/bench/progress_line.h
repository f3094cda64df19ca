// The live status line `neuronctl bench` draws on a terminal's stderr while a level runs:
// redrawn in place with '\r', and erased before the level's result is printed.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_PROGRESS_LINE_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_PROGRESS_LINE_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

#include "client/neuronctl/bench/bench_level_runner.h"

namespace neuronserve::neuronctl {

// "level 2/5 concurrency 2: 1.2s/5.0s, 1510 requests, 1254.3 req/s" (or "warmup 0.4s/1.0s",
// or "37/100 requests" for a request count). `level` counts from 1.
std::string FormatProgress(size_t level, size_t levels, uint32_t concurrency,
                           const LevelProgress& progress);

// One line redrawn in place. Writes nothing unless `enabled` (err is a terminal).
class ProgressLine {
 public:
  ProgressLine(std::ostream& err, bool enabled) : err_(err), enabled_(enabled) {}
  // Leaves the terminal line clean however the command ends.
  ~ProgressLine() { Erase(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Replaces the line with `text`, padding with spaces over what a longer previous text left.
  void Draw(const std::string& text);
  // Blanks the line and returns the cursor to its start; nothing when nothing is drawn.
  void Erase();

 private:
  std::ostream& err_;
  const bool enabled_;
  size_t drawn_width_ = 0;
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_PROGRESS_LINE_H_
