#include "tests/e2e/daemon_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <regex>

extern char** environ;

namespace neuronserve::testing {

DaemonProcess::DaemonProcess(const DaemonArgs& args) {
  // Build argv and envp before fork: the child may only call async-signal-safe functions.
  std::vector<std::string> argv_strings = {NEURON_SERVE_PATH};
  argv_strings.insert(argv_strings.end(), args.flags.begin(), args.flags.end());
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals != nullptr)
      env[std::string(*entry, static_cast<size_t>(equals - *entry))] = equals + 1;
  }
  for (const std::string& name : args.unset_env) env.erase(name);
  for (const auto& [name, value] : args.env) env[name] = value;
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);

  std::vector<char*> argv;
  for (std::string& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    // A test that crashes or is killed by ctest's timeout must not leave its daemon behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  reader_ = std::thread([this, fd = pipe_fds[0]] { ReadStderr(fd); });
}

DaemonProcess::~DaemonProcess() {
  if (pid_ > 0 && !exit_status_.has_value()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (reader_.joinable()) reader_.join();
}

void DaemonProcess::ReadStderr(int fd) {
  char buffer[4096];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    absl::MutexLock lock(&mutex_);
    stderr_.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  absl::MutexLock lock(&mutex_);
  stderr_closed_ = true;
}

std::optional<std::string> DaemonProcess::WaitUntilListening(absl::Duration timeout) {
  static const std::regex kListening("listening on ([^ ]+:[0-9]+)");
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

int DaemonProcess::WaitForExit(absl::Duration timeout) {
  if (pid_ <= 0) return -1;
  const absl::Time deadline = absl::Now() + timeout;
  while (!exit_status_.has_value()) {
    int status = 0;
    pid_t result = waitpid(pid_, &status, WNOHANG);
    if (result == pid_) {
      exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      break;
    }
    if (absl::Now() > deadline) return -1;
    absl::SleepFor(absl::Milliseconds(10));
  }
  if (reader_.joinable()) reader_.join();
  return *exit_status_;
}

int DaemonProcess::StopWith(int signal_number, absl::Duration timeout) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal_number);
  return WaitForExit(timeout);
}

std::string DaemonProcess::Stderr() const {
  absl::MutexLock lock(&mutex_);
  return stderr_;
}

}  // namespace neuronserve::testing
