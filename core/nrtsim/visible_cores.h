// NEURON_RT_VISIBLE_CORES / NEURON_RT_NUM_CORES: which physical cores of the machine this process
// may use. The runtime renumbers the chosen cores from 0 in ascending physical order.
#ifndef NEURON_SERVE_CORE_NRTSIM_VISIBLE_CORES_H_
#define NEURON_SERVE_CORE_NRTSIM_VISIBLE_CORES_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace neuronserve::nrtsim {

// Parses a list of single cores and inclusive ranges, e.g. "2-5", "1,3", "0,2-3". Every core must
// be < physical_core_count and appear once. Returns the physical core ids, ascending; nullopt if
// malformed or out of range.
std::optional<std::vector<uint32_t>> ParseVisibleCoreList(std::string_view text,
                                                          uint32_t physical_core_count);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_CORE_NRTSIM_VISIBLE_CORES_H_
