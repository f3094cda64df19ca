// The simulated machine, as the environment describes it (see README.md for every variable).
// Read afresh at each nrt_init, and by the functions that may be called before it.
#ifndef NEURON_SERVE_CORE_NRTSIM_SIM_CONFIG_H_
#define NEURON_SERVE_CORE_NRTSIM_SIM_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/nrt/dtype.h"
#include "core/nrtsim/instance_table.h"
#include "core/nrtsim/text_parse.h"

namespace neuronserve::nrtsim {

struct SimConfig {
  uint32_t physical_core_count = 0;
  const InstanceFamily* family = nullptr;
  uint32_t instance_size = 0;  // NRT_INSTANCE_SIZE_*
  uint64_t hbm_bytes_per_core = 0;
  RuntimeVersion version;
  // The numbering of nrt_dtype_t that a runtime of `version` uses.
  DtypeNumbering dtype_numbering = DtypeNumbering::kRuntime230;
  // Physical ids of the visible cores, ascending; visible core i is visible_cores[i].
  std::vector<uint32_t> visible_cores;
};

// On a malformed or out-of-range variable returns nullopt and sets *error to a sentence naming
// the variable and its value.
std::optional<SimConfig> ReadSimConfigFromEnvironment(std::string* error);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_CORE_NRTSIM_SIM_CONFIG_H_
