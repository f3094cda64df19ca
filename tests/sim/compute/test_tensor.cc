#include "tests/sim/compute/test_tensor.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "tests/sim/compute/reference_formats.h"

namespace neuronserve::nrtsim::compute::testing {
namespace {

template <typename T>
std::vector<std::byte> BytesOf(T value) {
  std::vector<std::byte> bytes(sizeof value);
  std::memcpy(bytes.data(), &value, sizeof value);
  return bytes;
}

template <typename T>
T ValueAt(const std::byte* element) {
  T value;
  std::memcpy(&value, element, sizeof value);
  return value;
}

std::string Describe(const TestTensor& tensor, size_t index) {
  if (!IsFloatType(tensor.dtype)) {
    const Int128 value = tensor.integer_value(index);
    // to_string has no __int128 overload; every dtype's value fits one of these.
    return value < 0 ? std::to_string(static_cast<int64_t>(value))
                     : std::to_string(static_cast<uint64_t>(value));
  }
  std::string text = std::to_string(tensor.float_value(index)) + " (bytes";
  for (size_t b = 0; b < DataTypeSize(tensor.dtype); ++b) {
    text += " " + std::to_string(static_cast<int>(tensor.element(index)[b]));
  }
  return text + ")";
}

}  // namespace

bool IsFloatType(DataType type) {
  for (DataType t : kFloatTypes) {
    if (t == type) return true;
  }
  return false;
}

bool IsSignedType(DataType type) {
  return type == DataType::kInt8 || type == DataType::kInt16 || type == DataType::kInt32 ||
         type == DataType::kInt64;
}

std::vector<std::byte> ReferenceFloatBytes(DataType type, double value) {
  switch (type) {
    case DataType::kFloat16:
      return BytesOf(ReferenceFloat16Bits(value));
    case DataType::kBFloat16:
      return BytesOf(ReferenceBFloat16BitsFromDouble(value));
    case DataType::kFp8E3:
      return BytesOf(ReferenceFp8Bits(kE3M4Spec, value));
    case DataType::kFp8E4:
      return BytesOf(ReferenceFp8Bits(kE4M3Spec, value));
    case DataType::kFp8E5:
      return BytesOf(ReferenceFp8Bits(kE5M2Spec, value));
    default:  // float32, fp32r; the tests' values are within float32's range
      return BytesOf(static_cast<float>(value));
  }
}

double ReferenceFloatValue(DataType type, const std::byte* element) {
  switch (type) {
    case DataType::kFloat16:
      return ReferenceFloat16Value(ValueAt<uint16_t>(element));
    case DataType::kBFloat16:
      return ReferenceBFloat16Value(ValueAt<uint16_t>(element));
    case DataType::kFp8E3:
      return ReferenceFp8Value(kE3M4Spec, ValueAt<uint8_t>(element));
    case DataType::kFp8E4:
      return ReferenceFp8Value(kE4M3Spec, ValueAt<uint8_t>(element));
    case DataType::kFp8E5:
      return ReferenceFp8Value(kE5M2Spec, ValueAt<uint8_t>(element));
    default:
      return ValueAt<float>(element);
  }
}

std::vector<std::byte> IntegerBytes(DataType type, Int128 value) {
  // C++20 defines conversion to a narrower integer type as modular.
  switch (type) {
    case DataType::kInt8:
      return BytesOf(static_cast<int8_t>(value));
    case DataType::kUInt8:
      return BytesOf(static_cast<uint8_t>(value));
    case DataType::kInt16:
      return BytesOf(static_cast<int16_t>(value));
    case DataType::kUInt16:
      return BytesOf(static_cast<uint16_t>(value));
    case DataType::kInt32:
      return BytesOf(static_cast<int32_t>(value));
    case DataType::kUInt32:
      return BytesOf(static_cast<uint32_t>(value));
    case DataType::kInt64:
      return BytesOf(static_cast<int64_t>(value));
    default:
      return BytesOf(static_cast<uint64_t>(value));
  }
}

Int128 IntegerValue(DataType type, const std::byte* element) {
  switch (type) {
    case DataType::kInt8:
      return ValueAt<int8_t>(element);
    case DataType::kUInt8:
      return ValueAt<uint8_t>(element);
    case DataType::kInt16:
      return ValueAt<int16_t>(element);
    case DataType::kUInt16:
      return ValueAt<uint16_t>(element);
    case DataType::kInt32:
      return ValueAt<int32_t>(element);
    case DataType::kUInt32:
      return ValueAt<uint32_t>(element);
    case DataType::kInt64:
      return ValueAt<int64_t>(element);
    default:
      return ValueAt<uint64_t>(element);
  }
}

TestTensor UnwrittenTensor(DataType type, Shape shape) {
  const size_t size = ElementCount(shape) * DataTypeSize(type);
  return TestTensor{type, std::move(shape), std::vector<std::byte>(size, std::byte{0xCD})};
}

TestTensor FloatTensor(DataType type, Shape shape, const std::vector<double>& values) {
  EXPECT_EQ(values.size(), ElementCount(shape)) << "test bug: value count";
  TestTensor tensor{type, std::move(shape), {}};
  for (double value : values) {
    const std::vector<std::byte> bytes = ReferenceFloatBytes(type, value);
    tensor.bytes.insert(tensor.bytes.end(), bytes.begin(), bytes.end());
  }
  return tensor;
}

TestTensor IntegerTensor(DataType type, Shape shape, const std::vector<Int128>& values) {
  EXPECT_EQ(values.size(), ElementCount(shape)) << "test bug: value count";
  TestTensor tensor{type, std::move(shape), {}};
  for (Int128 value : values) {
    const std::vector<std::byte> bytes = IntegerBytes(type, value);
    tensor.bytes.insert(tensor.bytes.end(), bytes.begin(), bytes.end());
  }
  return tensor;
}

TestTensor AnyTensor(DataType type, Shape shape, const std::vector<double>& values) {
  if (IsFloatType(type)) return FloatTensor(type, std::move(shape), values);
  std::vector<Int128> integers;
  for (double value : values) integers.push_back(static_cast<Int128>(value));
  return IntegerTensor(type, std::move(shape), integers);
}

void ExpectSameElements(const TestTensor& expected, const TestTensor& actual,
                        const std::string& context) {
  ASSERT_EQ(expected.dtype, actual.dtype) << context;
  ASSERT_EQ(expected.bytes.size(), actual.bytes.size()) << context;
  const size_t size = DataTypeSize(expected.dtype);
  for (size_t i = 0; i < expected.count(); ++i) {
    if (IsFloatType(expected.dtype)) {
      const double e = expected.float_value(i);
      const double a = actual.float_value(i);
      if (std::isnan(e) && std::isnan(a) && std::signbit(e) == std::signbit(a)) continue;
    }
    EXPECT_EQ(0, std::memcmp(expected.element(i), actual.element(i), size))
        << context << ", " << DataTypeName(expected.dtype) << " element " << i << ": expected "
        << Describe(expected, i) << ", got " << Describe(actual, i);
  }
}

}  // namespace neuronserve::nrtsim::compute::testing
