#include "core/nrtsim/shape.h"

#include <limits>

namespace neuronserve::nrtsim {

std::optional<uint64_t> ElementCount(const Shape& shape) {
  uint64_t count = 1;
  for (uint32_t dim : shape) {
    if (dim != 0 && count > std::numeric_limits<uint64_t>::max() / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

std::string ShapeToString(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace neuronserve::nrtsim
