// TensorSignature: what a model declares about one input or output (name, element type,
// shape), the part the simulator's model format (sim/simmodel) and the daemon's binding
// (core/nrt's TensorSpec, which adds the runtime's usage and byte size) share.
//
// A plain value: no thread safety beyond that of std::string and std::vector.
#ifndef NEURON_SERVE_BASE_TENSOR_SIGNATURE_H_
#define NEURON_SERVE_BASE_TENSOR_SIGNATURE_H_

#include <string>

#include "base/dtype.h"
#include "base/shape.h"

namespace neuronserve {

// Members in this order so that {name, dtype, shape} declares a tensor.
struct TensorSignature {
  std::string name;
  DataType dtype = DataType::kUnknown;  // every writer sets it; kUnknown until then
  Shape shape;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_TENSOR_SIGNATURE_H_
