// The float32 ops of a sim NEFF, on the CPU. Shapes were checked when the model was loaded;
// each kernel writes exactly as many elements as its output has.
#ifndef NEURON_SERVE_CORE_NRTSIM_KERNELS_H_
#define NEURON_SERVE_CORE_NRTSIM_KERNELS_H_

#include <cstddef>
#include <span>

#include "core/nrtsim/model_spec.h"

namespace neuronserve::nrtsim {

// [m,k] x [k,n] -> [m,n].
void MatMul(std::span<const float> a, std::span<const float> b, size_t m, size_t k, size_t n,
            std::span<float> out);

// add or mul. Either both operands have out.size() elements, or one of them is a vector whose
// length divides out.size() and repeats over the other's last dimension.
void ElementwiseBinary(OpKind kind, std::span<const float> a, std::span<const float> b,
                       std::span<float> out);

// relu, tanh or sigmoid.
void ElementwiseUnary(OpKind kind, std::span<const float> in, std::span<float> out);

// Softmax over each consecutive run of `row_length` elements (the last dimension).
void Softmax(std::span<const float> in, size_t row_length, std::span<float> out);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_CORE_NRTSIM_KERNELS_H_
