// ChildProcess: a server started as a child process by the end-to-end tests and the benchmark
// (the neuron-serve daemon, or the benchmark's echo server), with its stderr collected so that
// callers can wait for its "listening on HOST:PORT" line and show its log when something goes
// wrong. It dies with its parent (PR_SET_PDEATHSIG): a test killed by a timeout leaves no
// server behind. When a sanitizer stopped it, its report (sanitizer_report.h) is printed whole to
// this process's stderr once the exit is seen (WaitForExit, StopWith, or the destructor), so that
// every test and the soak show it in CI's log, whatever they print of the log themselves.
#ifndef NEURON_SERVE_TESTS_SUPPORT_CHILD_PROCESS_H_
#define NEURON_SERVE_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace neuronserve::testing {

struct ChildSpec {
  std::vector<std::string> argv;            // argv[0] is the executable's path
  std::map<std::string, std::string> env;   // added to (or overriding) this process's
  std::vector<std::string> unset_env;       // variables removed from it
  std::vector<std::string> unset_prefixes;  // variables starting with these, removed
  bool capture_stdout = false;  // collect stdout too (else it is this process's stdout)
};

class ChildProcess {
 public:
  explicit ChildProcess(const ChildSpec& spec);
  ~ChildProcess();  // SIGKILL if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Waits for the whole "listening on HOST:PORT ..." line (up to its newline, so that the rest
  // of the line and everything logged before it is in Stderr() too); returns "HOST:PORT", or
  // nullopt if the process exited or the timeout passed first.
  std::optional<std::string> WaitUntilListening(absl::Duration timeout = absl::Seconds(20));

  // Sends `signal_number` and waits for the exit; returns the exit status (as from waitpid's
  // WEXITSTATUS), or -1 if it did not exit within the timeout or died from a signal.
  int StopWith(int signal_number, absl::Duration timeout = absl::Seconds(20));
  // Waits for the process to exit on its own; same result as StopWith.
  int WaitForExit(absl::Duration timeout = absl::Seconds(20));
  // The signal that ended the process (waitpid's WTERMSIG) once StopWith or WaitForExit saw it
  // end; 0 while it runs, or when it exited.
  int TerminatingSignal() const { return terminating_signal_; }

  // Everything the process wrote to stderr so far.
  std::string Stderr() const;
  // Everything it wrote to stdout so far, with ChildSpec::capture_stdout.
  std::string Stdout() const;

  // The child's process id (-1 if it could not be started).
  pid_t pid() const { return pid_; }

 private:
  // Appends what `fd` yields to the captured stream `sink` (under mutex_) until end of file,
  // then closes `fd`.
  void ReadInto(int fd, std::string ChildProcess::*sink);
  // ReadInto stderr_, then marks it closed.
  void ReadStderr(int fd);
  // Prints the sanitizer report in stderr_, if any, the first time it is called with the
  // readers joined.
  void ShowSanitizerReport();

  pid_t pid_ = -1;
  std::string program_;  // argv[0], to name the process in its report
  bool report_shown_ = false;
  std::thread reader_;
  std::thread stdout_reader_;
  mutable absl::Mutex mutex_;
  std::string stderr_ ABSL_GUARDED_BY(mutex_);
  bool stderr_closed_ ABSL_GUARDED_BY(mutex_) = false;
  std::string stdout_ ABSL_GUARDED_BY(mutex_);
  std::optional<int> exit_status_;
  int terminating_signal_ = 0;
};

// A field of /proc/PID/status in bytes ("VmRSS", "VmHWM": the values given in kB); 0 when it
// cannot be read (the process is gone).
uint64_t ProcessStatusBytes(pid_t pid, const std::string& field);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_CHILD_PROCESS_H_
