// CoreHolder: a second process (nrtsim_core_holder, see core_holder_main.cc) that calls
// nrt_init of the simulator and then holds its cores until it is killed, for the tests of the
// cross-process core reservation. Started with posix_spawn (safe in a multi-threaded test),
// with this process's environment plus overrides, so it shares the test's NRTSIM_LOCK_DIR.
// Its stdout and stderr arrive through one pipe, collected by the Wait* calls.
//
// Not thread-safe; owns the child: the destructor kills it (SIGKILL) and reaps it.
#ifndef NEURON_SERVE_TESTS_SIM_CORE_HOLDER_H_
#define NEURON_SERVE_TESTS_SIM_CORE_HOLDER_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>

namespace nrtsim_test {

class CoreHolder {
 public:
  // NEURON_RT_VISIBLE_CORES=visible_cores plus `env` over this process's environment.
  explicit CoreHolder(const std::string& visible_cores,
                      std::map<std::string, std::string> env = {});
  ~CoreHolder();
  CoreHolder(const CoreHolder&) = delete;
  CoreHolder& operator=(const CoreHolder&) = delete;

  pid_t pid() const { return pid_; }

  // Collects output until it contains `text` (true), or the child closed its output or the
  // timeout passed (false).
  bool WaitForOutput(const std::string& text,
                     std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // "ready": nrt_init succeeded and the cores are held.
  bool WaitUntilReady() { return WaitForOutput("ready\n"); }
  // Everything the child wrote so far (as collected by the Wait* calls).
  const std::string& output() const { return output_; }

  // Waits for the child to exit on its own (polling with a deadline) and collects the rest of
  // its output; returns its exit code, or -1 if it did not exit in time or died from a signal.
  int WaitForExit(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // SIGKILL, then waitpid: once this returns, the kernel has released the child's locks.
  void KillAndWait();

 private:
  // Reads what is available within `timeout`; false once the pipe is closed.
  bool ReadSome(std::chrono::milliseconds timeout);

  pid_t pid_ = -1;
  int output_fd_ = -1;
  bool reaped_ = false;
  std::string output_;
};

}  // namespace nrtsim_test

#endif  // NEURON_SERVE_TESTS_SIM_CORE_HOLDER_H_
