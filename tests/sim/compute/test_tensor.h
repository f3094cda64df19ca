// Tensors for the compute tests: owned bytes and shape, built from values by the reference
// encoders (reference_formats.h) and plain C++ integer conversions, never by the code under
// test, and compared element by element.
//
// Thread safety: plain values, used by one test at a time.
#ifndef NEURON_SERVE_TESTS_SIM_COMPUTE_TEST_TENSOR_H_
#define NEURON_SERVE_TESTS_SIM_COMPUTE_TEST_TENSOR_H_

#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "sim/compute/tensor_view.h"

namespace neuronserve::nrtsim::compute::testing {

// Integers of any dtype, exactly (int64 and uint64 both fit).
using Int128 = __int128;

inline constexpr DataType kFloatTypes[] = {
    DataType::kFloat32, DataType::kFp32R, DataType::kFloat16, DataType::kBFloat16,
    DataType::kFp8E3,   DataType::kFp8E4, DataType::kFp8E5,
};
inline constexpr DataType kIntegerTypes[] = {
    DataType::kInt8,  DataType::kUInt8,  DataType::kInt16, DataType::kUInt16,
    DataType::kInt32, DataType::kUInt32, DataType::kInt64, DataType::kUInt64,
};
// kFloatTypes then kIntegerTypes: every dtype the kernels compute in.
inline std::vector<DataType> AllComputeTypes() {
  std::vector<DataType> types(std::begin(kFloatTypes), std::end(kFloatTypes));
  types.insert(types.end(), std::begin(kIntegerTypes), std::end(kIntegerTypes));
  return types;
}

bool IsFloatType(DataType type);
bool IsSignedType(DataType type);

// The bytes of `value` rounded to nearest-even into float dtype `type` by the reference
// encoders (fp8_e4 saturating, NaN and inf kept).
std::vector<std::byte> ReferenceFloatBytes(DataType type, double value);
// The exact value of a float dtype's element, by the reference decoders.
double ReferenceFloatValue(DataType type, const std::byte* element);
// The bytes of `value` modulo 2^(8 * size) in integer dtype `type` (two's complement).
std::vector<std::byte> IntegerBytes(DataType type, Int128 value);
// The value of an integer dtype's element.
Int128 IntegerValue(DataType type, const std::byte* element);

struct TestTensor {
  DataType dtype;
  Shape shape;
  std::vector<std::byte> bytes;

  size_t count() const { return ElementCount(shape); }
  const std::byte* element(size_t index) const {
    return bytes.data() + index * DataTypeSize(dtype);
  }
  double float_value(size_t index) const { return ReferenceFloatValue(dtype, element(index)); }
  Int128 integer_value(size_t index) const { return IntegerValue(dtype, element(index)); }
  ConstTensor view() const { return {dtype, &shape, bytes}; }
  MutTensor mutable_view() { return {dtype, &shape, bytes}; }
};

// A tensor whose bytes are all 0xCD, so that an element a kernel fails to write shows.
TestTensor UnwrittenTensor(DataType type, Shape shape);
// A float tensor holding `values` rounded into `type`.
TestTensor FloatTensor(DataType type, Shape shape, const std::vector<double>& values);
// An integer tensor holding `values` wrapped into `type`.
TestTensor IntegerTensor(DataType type, Shape shape, const std::vector<Int128>& values);
// The same for either kind: float values are rounded, integer dtypes take each value truncated
// to an integer first.
TestTensor AnyTensor(DataType type, Shape shape, const std::vector<double>& values);

// Expects `actual` to equal `expected` bytewise in every element, except that two NaNs of the
// same sign are equal whatever their payloads. `context` names the case in failure messages.
void ExpectSameElements(const TestTensor& expected, const TestTensor& actual,
                        const std::string& context);

}  // namespace neuronserve::nrtsim::compute::testing

#endif  // NEURON_SERVE_TESTS_SIM_COMPUTE_TEST_TENSOR_H_
