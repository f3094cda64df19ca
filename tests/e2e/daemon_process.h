// DaemonProcess: the real neuron-serve binary started as a child process for end-to-end tests,
// with its stderr collected so tests can wait for and assert on its log lines.
#ifndef NEURON_SERVE_TESTS_E2E_DAEMON_PROCESS_H_
#define NEURON_SERVE_TESTS_E2E_DAEMON_PROCESS_H_

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace neuronserve::testing {

struct DaemonArgs {
  std::vector<std::string> flags;          // e.g. {"--listen=127.0.0.1:0"}
  std::map<std::string, std::string> env;  // added to (or overriding) the test's environment
  std::vector<std::string> unset_env;      // removed from the environment
};

class DaemonProcess {
 public:
  // Starts NEURON_SERVE_PATH with `args`.
  explicit DaemonProcess(const DaemonArgs& args);
  ~DaemonProcess();  // SIGKILL if still running

  // Waits for the "listening on HOST:PORT" line; returns "HOST:PORT", or nullopt if the process
  // exited or the timeout passed first.
  std::optional<std::string> WaitUntilListening(absl::Duration timeout = absl::Seconds(20));

  // Sends `signal_number` and waits for the exit; returns the exit status (as from waitpid's
  // WEXITSTATUS), or -1 if it did not exit within the timeout or died from a signal.
  int StopWith(int signal_number, absl::Duration timeout = absl::Seconds(20));
  // Waits for the process to exit on its own; same result as StopWith.
  int WaitForExit(absl::Duration timeout = absl::Seconds(20));

  // Everything the daemon wrote to stderr so far.
  std::string Stderr() const;

  // The child's process id (-1 if it could not be started).
  pid_t pid() const { return pid_; }

 private:
  void ReadStderr(int fd);

  pid_t pid_ = -1;
  std::thread reader_;
  mutable absl::Mutex mutex_;
  std::string stderr_ ABSL_GUARDED_BY(mutex_);
  bool stderr_closed_ ABSL_GUARDED_BY(mutex_) = false;
  std::optional<int> exit_status_;
};

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_DAEMON_PROCESS_H_
