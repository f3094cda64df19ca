// Tensor shapes: dimensions as nrt_tensor_info_t reports them (uint32_t each).
#ifndef NEURON_SERVE_CORE_NRTSIM_SHAPE_H_
#define NEURON_SERVE_CORE_NRTSIM_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuronserve::nrtsim {

using Shape = std::vector<uint32_t>;

// The product of the dimensions; nullopt if it overflows uint64_t.
std::optional<uint64_t> ElementCount(const Shape& shape);

// "[4,8]", the form error messages use.
std::string ShapeToString(const Shape& shape);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_CORE_NRTSIM_SHAPE_H_
