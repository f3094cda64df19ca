// Names of NRT_STATUS values, both ways: for nrt_get_status_as_str and for the status of a fault
// in a model file.
#ifndef NEURON_SERVE_CORE_NRTSIM_SIMMODEL_STATUS_NAMES_H_
#define NEURON_SERVE_CORE_NRTSIM_SIMMODEL_STATUS_NAMES_H_

#include <optional>
#include <string_view>

#include "core/nrt/nrt_abi.h"

namespace neuronserve::simmodel {

// "NRT_HW_ERROR" for NRT_HW_ERROR; nullptr for a value the ABI does not declare. The string has
// static storage duration, as nrt_get_status_as_str promises.
const char* StatusName(NRT_STATUS status);

// Accepts the full name ("NRT_HW_ERROR") or the name without its prefix ("HW_ERROR").
std::optional<NRT_STATUS> StatusFromName(std::string_view name);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CORE_NRTSIM_SIMMODEL_STATUS_NAMES_H_
