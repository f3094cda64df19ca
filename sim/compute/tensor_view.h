// Views of the tensors a kernel reads and writes: a dtype, a row-major shape and the elements'
// little-endian bytes. The kernels own nothing; the caller keeps the shape and the bytes alive
// for the call.
//
// Thread safety: plain values. Several threads may read one tensor; nobody may write a tensor
// while another thread reads or writes it.
#ifndef NEURON_SERVE_SIM_COMPUTE_TENSOR_VIEW_H_
#define NEURON_SERVE_SIM_COMPUTE_TENSOR_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/dtype.h"
#include "base/shape.h"

namespace neuronserve::nrtsim::compute {

// Row-major dimensions (base/shape.h); here rank >= 1, every dimension >= 1. The kernels count
// elements with base/shape.h's unchecked ElementCount: nrt_load bounded every value's size.
using ::neuronserve::ElementCount;
using ::neuronserve::Shape;

// `bytes` holds exactly ElementCount(*shape) * DataTypeSize(dtype) bytes, with no alignment
// requirement (kernels read elements with memcpy or check alignment before viewing in place).
struct ConstTensor {
  DataType dtype;
  const Shape* shape;
  std::span<const std::byte> bytes;
};

// As ConstTensor, written by a kernel. It must not overlap any input of the same call.
struct MutTensor {
  DataType dtype;
  const Shape* shape;
  std::span<std::byte> bytes;
};

}  // namespace neuronserve::nrtsim::compute

#endif  // NEURON_SERVE_SIM_COMPUTE_TENSOR_VIEW_H_
