#include "tests/sim/core_holder.h"
#include "tests/support/build_paths.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

extern char** environ;

namespace nrtsim_test {

CoreHolder::CoreHolder(const std::string& visible_cores, std::map<std::string, std::string> env) {
  env["NEURON_RT_VISIBLE_CORES"] = visible_cores;
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals != nullptr)
      merged[std::string(*entry, static_cast<size_t>(equals - *entry))] = equals + 1;
  }
  for (const auto& [name, value] : env) merged[name] = value;
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : merged) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string path = NRTSIM_CORE_HOLDER_PATH;
  std::string parent = std::to_string(getpid());
  char* argv[] = {path.data(), parent.data(), nullptr};

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe2: " << std::strerror(errno);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  int spawned = posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    ADD_FAILURE() << "posix_spawn " << path << ": " << std::strerror(spawned);
    pid_ = -1;
    close(fds[0]);
    return;
  }
  output_fd_ = fds[0];
}

CoreHolder::~CoreHolder() {
  KillAndWait();
  if (output_fd_ >= 0) close(output_fd_);
}

bool CoreHolder::ReadSome(std::chrono::milliseconds timeout) {
  if (output_fd_ < 0) return false;
  pollfd poll_fd{output_fd_, POLLIN, 0};
  int ready = poll(&poll_fd, 1, static_cast<int>(timeout.count()));
  if (ready <= 0) return ready == 0 || errno == EINTR;  // nothing yet
  char buffer[4096];
  ssize_t n = read(output_fd_, buffer, sizeof(buffer));
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) {
    close(output_fd_);
    output_fd_ = -1;
    return false;
  }
  output_.append(buffer, static_cast<size_t>(n));
  return true;
}

bool CoreHolder::WaitForOutput(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (output_.find(text) == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !ReadSome(left)) return output_.find(text) != std::string::npos;
  }
  return true;
}

int CoreHolder::WaitForExit(std::chrono::milliseconds timeout) {
  if (pid_ <= 0 || reaped_) return -1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (ReadSome(std::chrono::milliseconds(50))) {  // until the child closes its output
    if (std::chrono::steady_clock::now() > deadline) return -1;
  }
  while (true) {
    int status = 0;
    pid_t result = waitpid(pid_, &status, WNOHANG);
    if (result == pid_) {
      reaped_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (std::chrono::steady_clock::now() > deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void CoreHolder::KillAndWait() {
  if (pid_ <= 0 || reaped_) return;
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
}

}  // namespace nrtsim_test
