// LineFramer: cuts a stream of bytes (a process's stdout or stderr, read in arbitrary pieces)
// into lines, so that each can be re-emitted as one log record.
//
// - A line ends at '\n'; the '\n' and one '\r' before it (CRLF) are not part of it.
// - Empty lines are dropped: a record with an empty message says nothing.
// - A line longer than the limit is emitted in pieces of at most the limit, each but the last
//   marked `continued`, so that a runaway writer (a binary dump, a line without '\n') cannot
//   grow the buffer without bound. Cuts never split a UTF-8 sequence when they can avoid it.
// - Finish() emits what is left after the last '\n' (a crash message rarely ends in one).
//
// Not thread-safe: one framer per stream, used by one thread.
#ifndef NEURON_SERVE_SERVER_LOGS_LINE_FRAMER_H_
#define NEURON_SERVE_SERVER_LOGS_LINE_FRAMER_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace neuronserve {

class LineFramer {
 public:
  // 16 KiB: longer than any log line a runtime writes on purpose, well below what a log
  // collector accepts as one record.
  static constexpr size_t kDefaultMaxLineBytes = 16 * 1024;

  // Receives each line (or piece of one) in order; `text` is valid only during the call.
  using Emit = absl::FunctionRef<void(std::string_view text, bool continued)>;

  explicit LineFramer(size_t max_line_bytes = kDefaultMaxLineBytes);

  // Takes the next bytes of the stream and emits every line they complete.
  void Append(std::string_view bytes, Emit emit);
  // The stream ended: emits the unterminated rest, if any.
  void Finish(Emit emit);

 private:
  // Emits `line` (complete: its '\n' was seen, or the stream ended), cut if too long.
  void EmitLine(std::string_view line, Emit emit);
  // The length of the first piece to cut from `text`, which is longer than the limit.
  size_t CutLength(std::string_view text) const;

  const size_t max_line_bytes_;
  std::string pending_;      // bytes after the last '\n' seen
  bool continuing_ = false;  // the last record emitted was marked continued
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_LINE_FRAMER_H_
