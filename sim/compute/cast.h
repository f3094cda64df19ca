// Conversion of tensor elements between any two dtypes (the 15 of base/dtype.h other than
// kUnknown). The rules, element by element:
//
//   same dtype      the bytes are copied.
//   float -> float  the exact value is rounded to nearest, ties to even, into the target; NaN stays
//                   NaN (quiet, sign kept) and +-inf stays +-inf, except that fp8_e4, which has no
//                   infinity, saturates: +-inf and every finite value beyond +-448 become +-448.
//                   float32 <-> fp32r keeps the bits (both are stored as float32).
//   int -> float    the integer is converted to double (exact up to 2^53 in magnitude, rounded to
//                   nearest-even beyond), then rounded to nearest-even into the target as above.
//   float -> int    truncated toward zero, then SATURATED to the target's [min, max]; NaN becomes
//                   0 (+-inf become max / min). This is a deliberate choice: C++ leaves
//                   out-of-range conversions undefined and numpy's result is platform-dependent.
//   int -> int      wrapped modulo 2^width (two's complement), like C++ conversions and numpy's
//                   astype: int32 300 -> int8 44, int8 -1 -> uint16 65535.
//
// Thread safety: pure functions of their arguments and the bytes they read; Cast writes only
// `out`.
#ifndef NEURON_SERVE_SIM_COMPUTE_CAST_H_
#define NEURON_SERVE_SIM_COMPUTE_CAST_H_

#include <cstddef>
#include <cstdint>

#include "base/dtype.h"
#include "sim/compute/tensor_view.h"

namespace neuronserve::nrtsim::compute {

// `value` truncated toward zero and saturated to integer dtype `target`'s range, NaN -> 0, as
// the value modulo 2^64 (ready for StoreIntegerBits).
uint64_t SaturatingFloatToIntegerBits(double value, DataType target);

// Converts one element of dtype `from` at `in` into dtype `to` at `out` by the rules above.
void CastElement(DataType from, const std::byte* in, DataType to, std::byte* out);

// Converts every element of `in` into `out`, which has the same shape (any two dtypes other
// than kUnknown).
void Cast(ConstTensor in, MutTensor out);

}  // namespace neuronserve::nrtsim::compute

#endif  // NEURON_SERVE_SIM_COMPUTE_CAST_H_
