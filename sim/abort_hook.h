// A test hook: NRTSIM_ABORT_ON_EXECUTE makes nrt_execute write a message to stderr and abort
// the process, as a crashing runtime would, so that tests of the daemon can check that a
// crash's last words survive (e.g. the output capture of --log-format=json). The real runtime
// has no such variable; the daemon knows nothing of it.
#ifndef NEURON_SERVE_SIM_ABORT_HOOK_H_
#define NEURON_SERVE_SIM_ABORT_HOOK_H_

namespace neuronserve::nrtsim {

// If NRTSIM_ABORT_ON_EXECUTE is set and not empty: writes "nrtsim: nrt_execute: aborting
// (NRTSIM_ABORT_ON_EXECUTE=<value>)" to stderr, without a final newline (a crash message often
// has none), and calls abort(). Otherwise returns.
void AbortIfRequested();

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_ABORT_HOOK_H_
