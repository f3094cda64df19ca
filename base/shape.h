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

// The product of the dimensions (1 for []); nullopt if it overflows uint64_t. For a shape from
// outside (a model file, a runtime's report) before anything sizes memory by it.
std::optional<uint64_t> CheckedElementCount(std::span<const uint32_t> shape);

// The same product without the check: it wraps around on overflow, so it is only for a shape
// known to fit, one whose CheckedElementCount (or the byte size of its tensor) was checked
// before, e.g. the simulator's values on its execution path, which nrt_load bounded. Inline
// because the simulator's kernels call it on every execution.
inline uint64_t ElementCount(std::span<const uint32_t> shape) {
  uint64_t count = 1;
  for (uint32_t dim : shape) count *= dim;
  return count;
}

// "[4,8]"; "[]" for a scalar.
std::string ShapeToString(std::span<const uint32_t> shape);

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_SHAPE_H_
