// Reading one tensor element of any dtype into the type kernels compute in, and writing a result
// back. Every float dtype is read as a float32 (exact: all their values are float32 values; fp32r
// is float32 bits), signed integers as int64_t and unsigned integers as uint64_t. Writing rounds
// floats to nearest, ties to even (see float_formats.h) and wraps integers to the dtype's width
// (two's complement, modular), which is what integer arithmetic results need.
//
// Elements are little-endian bytes at any alignment and are copied with memcpy, never viewed
// through a cast pointer.
//
// Thread safety: pure functions of their arguments and the bytes they read.
#ifndef NEURON_SERVE_SIM_COMPUTE_ELEMENT_ACCESS_H_
#define NEURON_SERVE_SIM_COMPUTE_ELEMENT_ACCESS_H_

#include <cstddef>
#include <cstdint>

#include "base/dtype.h"
#include "base/float_formats.h"

namespace neuronserve::nrtsim::compute {

// The family of types a dtype computes in.
enum class ComputeKind {
  kFloat,     // float32, fp32r, float16, bfloat16, fp8_e3, fp8_e4, fp8_e5 -> float
  kSigned,    // int8, int16, int32, int64 -> int64_t
  kUnsigned,  // uint8, uint16, uint32, uint64 -> uint64_t
  kNone,      // kUnknown
};

ComputeKind ComputeKindOf(DataType type);

// The encoding of a float dtype stored in fewer than 32 bits; nullptr for float32, fp32r and
// every non-float dtype.
const FloatFormat* NarrowFloatFormatOf(DataType type);

// Reads a float dtype's element. Undefined for other dtypes.
float LoadFloat(DataType type, const std::byte* element);

// Reads a signed integer dtype's element, sign-extended. Undefined for other dtypes.
int64_t LoadSigned(DataType type, const std::byte* element);

// Reads an unsigned integer dtype's element, zero-extended. Undefined for other dtypes.
uint64_t LoadUnsigned(DataType type, const std::byte* element);

// Reads any integer dtype's element as its value modulo 2^64 (sign-extended for signed dtypes):
// the representation in which wrapping add, subtract and multiply are the same for both
// signednesses.
uint64_t LoadIntegerBits(DataType type, const std::byte* element);

// Writes `value` to a float dtype's element, rounded to nearest, ties to even; NaN stays NaN and
// +-inf stays +-inf, except that fp8_e4 saturates to +-448 (float_formats.h).
void StoreFloat(DataType type, double value, std::byte* element);

// Writes the low DataTypeSize(type) bytes of `bits` to an integer dtype's element: the value
// wrapped to the dtype's width.
void StoreIntegerBits(DataType type, uint64_t bits, std::byte* element);

// The accumulators of matmul and the reductions: float32 for the float dtypes, the value modulo
// 2^64 for the integers (wrapping multiply-add is then the same for signed and unsigned). The
// unused tag picks the overload.
inline float LoadAccumulator(DataType type, const std::byte* element, float /*tag*/) {
  return LoadFloat(type, element);
}
inline uint64_t LoadAccumulator(DataType type, const std::byte* element, uint64_t /*tag*/) {
  return LoadIntegerBits(type, element);
}
inline void StoreAccumulator(DataType type, float value, std::byte* element) {
  StoreFloat(type, value, element);
}
inline void StoreAccumulator(DataType type, uint64_t value, std::byte* element) {
  StoreIntegerBits(type, value, element);
}

}  // namespace neuronserve::nrtsim::compute

#endif  // NEURON_SERVE_SIM_COMPUTE_ELEMENT_ACCESS_H_
