// The tensor kernels of the simulated runtime on every dtype: elementwise arithmetic with numpy
// broadcasting, activations, softmax, matrix multiplication, reductions and gather.
//
// Shapes and dtypes are checked by the caller (the model loader) before a kernel runs; kernels
// assume them valid and write every element of `out`, which must not overlap an input. What
// can only go wrong while running (an integer division by zero, an index out of range) comes
// back as a KernelError.
//
// Arithmetic by dtype family:
//   float dtypes (float32, fp32r, float16, bfloat16, fp8_*): elements are read as float32
//     (exactly), computed in float32 and rounded to nearest-even into the output dtype
//     (element_access.h); fp8_e4 saturates to +-448 instead of overflowing to inf.
//   signed integers: computed in int64 and unsigned integers in uint64, wrapping (modular)
//     on overflow, and the result wrapped to the output's width.
// float32 and fp32r take fast paths that work on the floats in place (float32_view.h); other
// dtypes convert element by element. Every result is bitwise deterministic: the order of the
// floating-point operations is fixed and documented per kernel.
//
// Thread safety: kernels keep no state; concurrent calls are safe when no call writes a tensor
// that another call reads or writes.
#ifndef NEURON_SERVE_SIM_COMPUTE_KERNELS_H_
#define NEURON_SERVE_SIM_COMPUTE_KERNELS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "sim/compute/broadcast.h"  // BroadcastShape
#include "sim/compute/cast.h"       // Cast
#include "sim/compute/tensor_view.h"

namespace neuronserve::nrtsim::compute {

// An execution-time failure: a sentence without the op's name, which the caller prefixes;
// nullopt on success.
using KernelError = std::optional<std::string>;

enum class BinaryOp { kAdd, kSub, kMul, kDiv };

// out = a (op) b elementwise, with numpy broadcasting: out's shape is BroadcastShape(a, b). a, b
// and out have one dtype, any of the 15. Integer division truncates toward zero and
// INT_MIN / -1 wraps to INT_MIN; an integer division by zero stops the kernel with
// "division by zero at element N" (N the flat index of the output element; elements before it
// are written). Float division by zero gives +-inf or NaN, as IEEE 754 does.
KernelError Binary(BinaryOp op, ConstTensor a, ConstTensor b, MutTensor out);

enum class UnaryOp { kRelu, kTanh, kSigmoid };

// out = op(in) elementwise, same shape and dtype. relu is x > 0 ? x : 0 on every dtype (NaN
// gives +0, unsigned integers are unchanged); tanh and sigmoid are for float dtypes only
// (sigmoid is computed so that exp never overflows). An integer dtype with tanh or sigmoid,
// which the loader refuses, copies the input.
void Unary(UnaryOp op, ConstTensor in, MutTensor out);

// Softmax over the last axis, same shape and dtype, float dtypes only (an integer dtype, which
// the loader refuses, copies the input). Each row: m = max, e_j = exp(x_j - m), s = sum of e_j
// in index order, out_j = e_j / s, all in float32, then rounded to the dtype.
void Softmax(ConstTensor in, MutTensor out);

// [M,K] x [K,N] -> [M,N], all one dtype, any of the 15. out[i][j] accumulates a[i][p] * b[p][j]
// for p = 0..K-1 in that order, starting from 0, in float32 for float dtypes (rounded to the
// dtype once at the end) and in wrapping int64/uint64 for integers.
void MatMul(ConstTensor a, ConstTensor b, MutTensor out);

enum class ReduceOp { kSum, kMean };

// Sum or mean of `in` along `axis` (< rank), same dtype, any of the 15. out has in's shape with
// the axis removed or kept as 1 (the elements are in the same order either way; only the count
// matters). Floats accumulate in float32 in index order along the axis, starting from 0, and the
// mean is that sum / float32(count), rounded to the dtype once. Integers sum in wrapping
// int64/uint64 and the mean is sum / count truncated toward zero.
void Reduce(ReduceOp op, ConstTensor in, uint32_t axis, MutTensor out);

// Rows of `table` ([R, d1..dk], any dtype) picked by `indices` (int32 or int64, any shape S):
// out has shape S + [d1..dk] and table's dtype, and out's i-th row is table's row indices[i]
// (a byte copy). An index < 0 or >= R stops the kernel with
// "index 70000 at position 5 is outside the table's 100 rows" (position: the flat index into
// `indices`; rows before it are written).
KernelError Gather(ConstTensor table, ConstTensor indices, MutTensor out);

}  // namespace neuronserve::nrtsim::compute

#endif  // NEURON_SERVE_SIM_COMPUTE_KERNELS_H_
