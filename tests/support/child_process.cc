#include "tests/support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "tests/support/sanitizer_report.h"

extern char** environ;

namespace neuronserve::testing {

ChildProcess::ChildProcess(const ChildSpec& spec) {
  // Build argv and envp before fork: the child may only call async-signal-safe functions.
  std::vector<std::string> argv_strings = spec.argv;
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals == nullptr) continue;
    std::string name(*entry, static_cast<size_t>(equals - *entry));
    bool unset = false;
    for (const std::string& prefix : spec.unset_prefixes) unset |= name.starts_with(prefix);
    if (!unset) env[name] = equals + 1;
  }
  for (const std::string& name : spec.unset_env) env.erase(name);
  for (const auto& [name, value] : spec.env) env[name] = value;
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);

  std::vector<char*> argv;
  for (std::string& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  int pipe_fds[2];
  int stdout_fds[2] = {-1, -1};
  if (argv_strings.empty() || pipe(pipe_fds) != 0) return;
  program_ = argv_strings.front();
  if (spec.capture_stdout && pipe2(stdout_fds, O_CLOEXEC) != 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return;
  }
  pid_ = fork();
  if (pid_ == 0) {
    // A test that crashes or is killed by ctest's timeout must not leave its server behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (stdout_fds[1] >= 0) {
      dup2(stdout_fds[1], STDOUT_FILENO);
      close(stdout_fds[0]);
      close(stdout_fds[1]);
    }
    execve(argv[0], argv.data(), envp.data());
    const char message[] = "cannot execute the child process\n";
    (void)!write(STDERR_FILENO, message, sizeof(message) - 1);
    _exit(127);
  }
  close(pipe_fds[1]);
  if (stdout_fds[1] >= 0) close(stdout_fds[1]);
  if (pid_ < 0) {
    close(pipe_fds[0]);
    if (stdout_fds[0] >= 0) close(stdout_fds[0]);
    return;
  }
  reader_ = std::thread([this, fd = pipe_fds[0]] { ReadStderr(fd); });
  if (stdout_fds[0] >= 0) stdout_reader_ = std::thread([this, fd = stdout_fds[0]] { ReadInto(fd, &ChildProcess::stdout_); });
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_status_.has_value()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (reader_.joinable()) reader_.join();
  if (stdout_reader_.joinable()) stdout_reader_.join();
  ShowSanitizerReport();
}

void ChildProcess::ReadInto(int fd, std::string ChildProcess::*sink) {
  char buffer[4096];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    absl::MutexLock lock(&mutex_);
    (this->*sink).append(buffer, static_cast<size_t>(n));
  }
  close(fd);
}

void ChildProcess::ReadStderr(int fd) {
  ReadInto(fd, &ChildProcess::stderr_);
  absl::MutexLock lock(&mutex_);
  stderr_closed_ = true;
}

std::optional<std::string> ChildProcess::WaitUntilListening(absl::Duration timeout) {
  // Up to the end of the line: a read may stop in the middle of one, and the whole line (the
  // port's last digits, what the daemon says after the address) must be in the capture.
  static const std::regex kListening("listening on ([^ \n]+:[0-9]+)[^\n]*\n");
  std::optional<std::string> address;
  auto found_or_closed = [&]() ABSL_SHARED_LOCKS_REQUIRED(mutex_) {
    std::smatch match;
    if (std::regex_search(stderr_, match, kListening)) address = match[1];
    return address.has_value() || stderr_closed_;
  };
  absl::MutexLock lock(&mutex_);
  mutex_.AwaitWithTimeout(absl::Condition(&found_or_closed), timeout);
  return address;
}

int ChildProcess::WaitForExit(absl::Duration timeout) {
  if (pid_ <= 0) return -1;
  const absl::Time deadline = absl::Now() + timeout;
  while (!exit_status_.has_value()) {
    int status = 0;
    pid_t result = waitpid(pid_, &status, WNOHANG);
    if (result == pid_) {
      exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      if (WIFSIGNALED(status)) terminating_signal_ = WTERMSIG(status);
      break;
    }
    if (absl::Now() > deadline) return -1;
    absl::SleepFor(absl::Milliseconds(10));
  }
  if (reader_.joinable()) reader_.join();
  if (stdout_reader_.joinable()) stdout_reader_.join();
  ShowSanitizerReport();
  return *exit_status_;
}

void ChildProcess::ShowSanitizerReport() {
  if (report_shown_) return;
  report_shown_ = true;
  const std::string report = SanitizerReport(Stderr());
  if (report.empty()) return;
  std::fprintf(stderr, "%s (pid %d) was stopped by a sanitizer; its report:\n%s\n",
               program_.c_str(), static_cast<int>(pid_), report.c_str());
  std::fflush(stderr);
}

int ChildProcess::StopWith(int signal_number, absl::Duration timeout) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal_number);
  return WaitForExit(timeout);
}

std::string ChildProcess::Stderr() const {
  absl::MutexLock lock(&mutex_);
  return stderr_;
}

std::string ChildProcess::Stdout() const {
  absl::MutexLock lock(&mutex_);
  return stdout_;
}

uint64_t ProcessStatusBytes(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  const std::string prefix = field + ":";
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    uint64_t kib = 0;
    return absl::SimpleAtoi(
               absl::StripAsciiWhitespace(absl::StripSuffix(line.substr(prefix.size()), "kB")),
               &kib)
               ? kib * 1024
               : 0;
  }
  return 0;
}

}  // namespace neuronserve::testing
