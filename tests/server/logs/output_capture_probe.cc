// output_capture_probe: a stand-in for the daemon in output_capture_test. It logs as the
// daemon does with --log-format=json, starts an OutputCapture, writes to fds 1 and 2 the way a
// runtime might (printf, partial writes, CRLF, an overlong line, empty lines, a level word),
// writes one line to the original stdout, and then either stops cleanly ("exit") or aborts
// with a message on stderr that has no final newline ("abort").
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "server/logs/logging.h"
#include "server/logs/output_capture.h"
#include "spdlog/spdlog.h"
#include "util/fmt_absl.h"

namespace {

void Write(int fd, const std::string& bytes) { (void)!write(fd, bytes.data(), bytes.size()); }

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "exit";
  if (absl::Status status = neuronserve::ConfigureLogging("info", neuronserve::LogFormat::kJson);
      !status.ok()) {
    return 3;
  }
  absl::StatusOr<std::unique_ptr<neuronserve::OutputCapture>> capture =
      neuronserve::OutputCapture::Start();
  if (!capture.ok()) {
    spdlog::critical("{}", capture.status().message());
    return 4;
  }
  spdlog::info("probe started");
  std::printf("stdout line one\n");  // no fflush: stdout is line-buffered, even in a crash
  std::fputs("2026-Dec-03 06:10:05.123 4242:4242 ERROR  NRT:nrt_init  stderr line\n", stderr);
  Write(STDOUT_FILENO, "partial ");
  Write(STDOUT_FILENO, "line\r\n\n\n");
  Write(STDERR_FILENO, std::string(40000, 'x') + "\n");
  Write((*capture)->original_stdout(), "not captured\n");
  if (mode == "abort") {
    std::fputs("probe: about to abort", stderr);
    std::abort();
  }
  spdlog::info("probe stopping");
  (*capture)->Stop();
  return 0;
}
