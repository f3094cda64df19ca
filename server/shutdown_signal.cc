#include "server/shutdown_signal.h"

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

}  // namespace

void BlockShutdownSignals() {
  sigset_t set = ShutdownSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int WaitForShutdownSignal() {
  sigset_t set = ShutdownSignals();
  int signal_number = 0;
  while (sigwait(&set, &signal_number) != 0) {
  }
  return signal_number;
}

bool ShutdownSignalPending() {
  sigset_t set = ShutdownSignals();
  const timespec no_wait{0, 0};
  return sigtimedwait(&set, nullptr, &no_wait) > 0;
}

}  // namespace neuronserve
