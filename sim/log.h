// The simulator's only output channel: one line on stderr per event, prefixed "nrtsim: ".
#ifndef NEURON_SERVE_SIM_LOG_H_
#define NEURON_SERVE_SIM_LOG_H_

#include <string_view>

namespace neuronserve::nrtsim {

// Writes "nrtsim: <message>\n" with a single write, so that lines from concurrent threads never
// interleave (the daemon's tests grep stderr for whole lines).
void LogLine(std::string_view message);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_LOG_H_
