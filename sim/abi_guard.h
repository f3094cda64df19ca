// The C ABI boundary: nothing may be thrown out of an extern "C" function. Each entry point
// wraps its body in try { ... } catch (...) { return StatusForCurrentException("nrt_xxx"); }.
#ifndef NEURON_SERVE_SIM_ABI_GUARD_H_
#define NEURON_SERVE_SIM_ABI_GUARD_H_

#include "base/nrt_abi.h"

namespace neuronserve::nrtsim {

// Call only inside a catch block. Logs one line naming `function` and maps the exception to a
// status: a JSON error -> NRT_INVALID, out of memory -> NRT_FAIL_HOST_MEM_ALLOC,
// anything else -> NRT_FAILURE.
NRT_STATUS StatusForCurrentException(const char* function) noexcept;

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_ABI_GUARD_H_
