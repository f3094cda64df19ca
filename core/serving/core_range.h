// CoreRange: a contiguous run of NeuronCores, the unit a replica of a model occupies. A plain
// value type; the allocator (core/lifecycle) hands ranges out, the serving layer runs on them.
#ifndef NEURON_SERVE_CORE_SERVING_CORE_RANGE_H_
#define NEURON_SERVE_CORE_SERVING_CORE_RANGE_H_

#include <cstdint>

namespace neuronserve {

// Contiguous cores [start, start + count).
struct CoreRange {
  uint32_t start = 0;
  uint32_t count = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_CORE_RANGE_H_
