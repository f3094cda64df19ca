// numpy broadcasting of two operands to one output: the output shape, and a walk over the output
// that gives, for each element, where the operands' elements are.
//
// Shapes are aligned at their trailing dimensions; the shorter one is extended with leading 1s;
// in every dimension the two sizes are equal or one of them is 1, and the output has the larger.
// [2,3,4] and [4] give [2,3,4]; [2,1] and [1,3] give [2,3]; [2,3] and [3,2] do not broadcast.
//
// Thread safety: pure functions and plain values.
#ifndef NEURON_SERVE_SIM_COMPUTE_BROADCAST_H_
#define NEURON_SERVE_SIM_COMPUTE_BROADCAST_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "sim/compute/tensor_view.h"

namespace neuronserve::nrtsim::compute {

// The shape `a` and `b` broadcast to, or nullopt if some aligned dimensions differ and neither
// is 1.
std::optional<Shape> BroadcastShape(const Shape& a, const Shape& b);

// The output's dimensions after merging every run of dimensions that both operands walk
// contiguously (so equal shapes become one dimension and the innermost loop is as long as
// possible), with each operand's element stride in each merged dimension: 0 where the operand is
// broadcast along it. At least one dimension.
struct BroadcastLayout {
  std::vector<size_t> dims;
  std::vector<size_t> a_strides;
  std::vector<size_t> b_strides;
};

// `out` must be BroadcastShape(a, b).
BroadcastLayout LayOutBroadcast(const Shape& a, const Shape& b, const Shape& out);

// Calls row(out_offset, a_offset, b_offset, length, a_step, b_step) for each run of the innermost
// dimension, in output order: output elements out_offset + j for j < length, whose operands are
// a_offset + j * a_step and b_offset + j * b_step (element indices; steps are 0 or 1). `row`
// returns whether to go on; false ends the walk.
template <typename RowFunction>
void ForEachBroadcastRow(const BroadcastLayout& layout, RowFunction&& row) {
  const size_t rank = layout.dims.size();
  const size_t length = layout.dims[rank - 1];
  const size_t a_step = layout.a_strides[rank - 1];
  const size_t b_step = layout.b_strides[rank - 1];
  // An odometer over the outer dimensions, carrying each operand's offset along.
  std::vector<size_t> position(rank - 1, 0);
  size_t out_offset = 0;
  size_t a_offset = 0;
  size_t b_offset = 0;
  while (true) {
    if (!row(out_offset, a_offset, b_offset, length, a_step, b_step)) return;
    out_offset += length;
    size_t dim = rank - 1;
    while (dim > 0) {
      --dim;
      a_offset += layout.a_strides[dim];
      b_offset += layout.b_strides[dim];
      if (++position[dim] < layout.dims[dim]) break;
      a_offset -= layout.a_strides[dim] * layout.dims[dim];
      b_offset -= layout.b_strides[dim] * layout.dims[dim];
      position[dim] = 0;
      if (dim == 0) return;
    }
    if (rank == 1) return;
  }
}

}  // namespace neuronserve::nrtsim::compute

#endif  // NEURON_SERVE_SIM_COMPUTE_BROADCAST_H_
