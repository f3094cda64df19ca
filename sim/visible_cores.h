// NEURON_RT_VISIBLE_CORES: which cores of the machine this process may use. The runtime's
// developer guide requires one contiguous, ascending set ("3,5,6" is invalid), and the
// simulator is as strict as the guide: "2-5", "3,4" and "2-3,4-5" are accepted; "1,3", "3,5,6",
// "3,2" and "0-2,2" are not. The chosen cores are renumbered from 0 in ascending order.
#ifndef NEURON_SERVE_SIM_VISIBLE_CORES_H_
#define NEURON_SERVE_SIM_VISIBLE_CORES_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace neuronserve::nrtsim {

// Parses comma-separated single cores and inclusive ranges ("N" or "A-B" with A <= B) that
// together form one contiguous ascending run: each item starts right after the previous one
// ends. Every core must be < core_count. Returns the cores, ascending; nullopt if malformed,
// out of range, out of order or with a gap.
std::optional<std::vector<uint32_t>> ParseVisibleCoreList(std::string_view text,
                                                          uint32_t core_count);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_VISIBLE_CORES_H_
