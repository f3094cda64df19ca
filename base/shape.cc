#include "base/shape.h"

#include <limits>

namespace neuronserve {

std::optional<uint64_t> CheckedElementCount(std::span<const uint32_t> shape) {
  uint64_t count = 1;
  for (uint32_t dim : shape) {
    if (dim != 0 && count > std::numeric_limits<uint64_t>::max() / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

std::string ShapeToString(std::span<const uint32_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace neuronserve
