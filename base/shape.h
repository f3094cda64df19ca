// Tensor shapes: the one type and the one text form that the daemon, the simulator and the
// tools use in every message ("[4,8]").
//
// Plain values and pure functions: thread-safe.
#ifndef NEURON_SERVE_BASE_SHAPE_H_
#define NEURON_SERVE_BASE_SHAPE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace neuronserve {

// Row-major dimensions (nrt_tensor_info_t reports them as uint32_t).
using Shape = std::vector<uint32_t>;

// The product of the dimensions (1 for []); nullopt if it overflows uint64_t.
std::optional<uint64_t> CheckedElementCount(std::span<const uint32_t> shape);

// "[4,8]"; "[]" for a scalar.
std::string ShapeToString(std::span<const uint32_t> shape);

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_SHAPE_H_
