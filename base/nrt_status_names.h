// Names of NRT_STATUS values, both ways: the one table of them, used by the daemon's errors, the
// simulator's nrt_get_status_as_str and the status of a fault in a sim model file.
#ifndef NEURON_SERVE_BASE_NRT_STATUS_NAMES_H_
#define NEURON_SERVE_BASE_NRT_STATUS_NAMES_H_

#include <optional>
#include <string_view>

#include "base/nrt_abi.h"

namespace neuronserve {

// "NRT_HW_ERROR" for NRT_HW_ERROR; empty for a value the ABI does not declare. A name that is not
// empty views a NUL-terminated string literal (static storage duration, as nrt_get_status_as_str
// promises), so its data() may be handed out as a C string.
std::string_view NrtStatusName(NRT_STATUS status);

// Accepts the full name ("NRT_HW_ERROR") or the name without its prefix ("HW_ERROR").
std::optional<NRT_STATUS> NrtStatusFromName(std::string_view name);

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_NRT_STATUS_NAMES_H_
