// SIGTERM/SIGINT as an ordinary event the main thread waits for.
//
// The signals are blocked in every thread (the mask is inherited, so this must run before any
// thread starts) and taken synchronously with sigwait: shutdown then runs as normal code, not
// in a signal handler, where almost nothing is safe to call.
#ifndef NEURON_SERVE_SERVER_SHUTDOWN_SIGNAL_H_
#define NEURON_SERVE_SERVER_SHUTDOWN_SIGNAL_H_

namespace neuronserve {

// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts afterwards.
void BlockShutdownSignals();

// Waits until SIGTERM or SIGINT arrives; returns the signal number.
int WaitForShutdownSignal();

// True when SIGTERM or SIGINT arrived since the last wait (takes it); never blocks.
bool ShutdownSignalPending();

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SHUTDOWN_SIGNAL_H_
