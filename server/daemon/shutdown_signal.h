// SIGTERM/SIGINT (stop) and SIGHUP (reload) as ordinary events the main thread waits for.
//
// The signals are blocked in every thread (the mask is inherited, so this must run before any
// thread starts) and taken synchronously with sigwait: shutdown and reload then run as normal
// code, not in a signal handler, where almost nothing is safe to call.
#ifndef NEURON_SERVE_SERVER_DAEMON_SHUTDOWN_SIGNAL_H_
#define NEURON_SERVE_SERVER_DAEMON_SHUTDOWN_SIGNAL_H_

#include <functional>

namespace neuronserve {

// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it starts afterwards.
void BlockShutdownSignals();

// Waits until SIGTERM or SIGINT arrives and returns the signal number. Each SIGHUP before it
// calls `on_hangup` (on this thread) and the wait goes on.
int WaitForShutdownSignal(const std::function<void()>& on_hangup = {});

// True when SIGTERM or SIGINT arrived since the last wait (takes it); never blocks.
bool ShutdownSignalPending();

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_SHUTDOWN_SIGNAL_H_
