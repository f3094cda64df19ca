#include "sim/compute/broadcast.h"

#include <algorithm>

namespace neuronserve::nrtsim::compute {
namespace {

// `shape`'s dimension aligned with output dimension `out_dim` of an output of rank `out_rank`;
// 1 where the shape is too short (its implicit leading 1s).
uint32_t AlignedDim(const Shape& shape, size_t out_rank, size_t out_dim) {
  const size_t missing = out_rank - shape.size();
  return out_dim < missing ? 1 : shape[out_dim - missing];
}

// Row-major element strides of `shape` aligned to the output's rank, 0 along every output
// dimension where the operand has size 1 (it is repeated there).
std::vector<size_t> AlignedStrides(const Shape& shape, const Shape& out) {
  std::vector<size_t> strides(out.size(), 0);
  size_t stride = 1;
  for (size_t dim = out.size(); dim-- > 0;) {
    const uint32_t size = AlignedDim(shape, out.size(), dim);
    strides[dim] = size == 1 ? 0 : stride;
    stride *= size;
  }
  return strides;
}

}  // namespace

std::optional<Shape> BroadcastShape(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t dim = 0; dim < rank; ++dim) {
    const uint32_t a_dim = AlignedDim(a, rank, dim);
    const uint32_t b_dim = AlignedDim(b, rank, dim);
    if (a_dim != b_dim && a_dim != 1 && b_dim != 1) return std::nullopt;
    out[dim] = std::max(a_dim, b_dim);
  }
  return out;
}

BroadcastLayout LayOutBroadcast(const Shape& a, const Shape& b, const Shape& out) {
  const std::vector<size_t> a_strides = AlignedStrides(a, out);
  const std::vector<size_t> b_strides = AlignedStrides(b, out);
  BroadcastLayout layout;
  for (size_t dim = 0; dim < out.size(); ++dim) {
    // A dimension of size 1 contributes nothing to the walk.
    if (out[dim] == 1) continue;
    if (!layout.dims.empty()) {
      // Merge into the previous dimension when, for both operands, stepping the previous one is
      // the same as stepping this one out[dim] times: both contiguous, or both repeated.
      const size_t last = layout.dims.size() - 1;
      const bool a_merges = layout.a_strides[last] == a_strides[dim] * out[dim];
      const bool b_merges = layout.b_strides[last] == b_strides[dim] * out[dim];
      if (a_merges && b_merges) {
        layout.dims[last] *= out[dim];
        layout.a_strides[last] = a_strides[dim];
        layout.b_strides[last] = b_strides[dim];
        continue;
      }
    }
    layout.dims.push_back(out[dim]);
    layout.a_strides.push_back(a_strides[dim]);
    layout.b_strides.push_back(b_strides[dim]);
  }
  if (layout.dims.empty()) {
    // Every dimension is 1: a single element.
    layout.dims = {1};
    layout.a_strides = {0};
    layout.b_strides = {0};
  }
  return layout;
}

}  // namespace neuronserve::nrtsim::compute
