// Where nrt_load puts a model: on the caller's start core, or with start core -1 on the first
// free one (the lowest visible core from which the model's nc_count consecutive cores hold no
// loaded model). Checks the start core, vnc_count and the fit, logging one "nrt_load: ..." line
// for a refusal. Thread-safe (the session's CoreOccupancy makes choose-and-claim one step).
#ifndef NEURON_SERVE_SIM_LOAD_PLACEMENT_H_
#define NEURON_SERVE_SIM_LOAD_PLACEMENT_H_

#include <cstdint>
#include <optional>

#include "base/nrt_abi.h"
#include "sim/core_occupancy.h"
#include "sim/runtime_state.h"

namespace neuronserve::nrtsim {

// On success sets *claim to the model's cores (claim->start() is the start core, visible
// numbering); the claim must live as long as the model. NRT_INVALID for a start core that is
// not visible or a bad vnc_count, NRT_LOAD_NOT_ENOUGH_NC when the model does not fit.
NRT_STATUS PlaceModel(const Session& session, int32_t vnc, int32_t vnc_count, uint32_t nc_count,
                      std::optional<CoreOccupancy::Claim>* claim);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_LOAD_PLACEMENT_H_
