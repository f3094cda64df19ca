#include "server/daemon/shutdown_signal.h"

#include <pthread.h>
#include <signal.h>

namespace neuronserve {
namespace {

sigset_t ShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

sigset_t ShutdownAndHangup() {
  sigset_t set = ShutdownSignals();
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void BlockShutdownSignals() {
  sigset_t set = ShutdownAndHangup();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int WaitForShutdownSignal(const std::function<void()>& on_hangup) {
  const sigset_t set = ShutdownAndHangup();
  while (true) {
    int signal_number = 0;
    if (sigwait(&set, &signal_number) != 0) continue;
    if (signal_number != SIGHUP) return signal_number;
    if (on_hangup) on_hangup();
  }
}

bool ShutdownSignalPending() {
  sigset_t set = ShutdownSignals();
  const timespec no_wait{0, 0};
  return sigtimedwait(&set, nullptr, &no_wait) > 0;
}

}  // namespace neuronserve
