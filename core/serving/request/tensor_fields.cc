#include "core/serving/request/tensor_fields.h"

#include <cstring>
#include <limits>

#include "base/float_formats.h"

namespace neuronserve {
namespace {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tensor elements are little-endian and are copied as they are: a little-endian host is assumed"
#endif

// Unaligned-safe element access: request fields and device buffers need not be aligned for
// the narrower type, and memcpy of a constant size compiles to one load or store.
template <typename T>
T LoadAt(const void* base, size_t index) {
  T value;
  std::memcpy(&value, static_cast<const uint8_t*>(base) + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void StoreAt(void* base, size_t index, T value) {
  std::memcpy(static_cast<uint8_t*>(base) + index * sizeof(T), &value, sizeof(T));
}

// Narrows `count` values of type From into elements of type To, stopping at the first value
// outside To's range.
template <typename From, typename To>
std::optional<OutOfRangeValue> NarrowIntegers(const void* values, size_t count, uint8_t* out) {
  constexpr int64_t kMin = std::numeric_limits<To>::min();
  constexpr int64_t kMax = std::numeric_limits<To>::max();
  for (size_t i = 0; i < count; ++i) {
    const int64_t value = LoadAt<From>(values, i);
    if (value < kMin || value > kMax) return OutOfRangeValue{i, value, kMin, kMax};
    StoreAt<To>(out, i, static_cast<To>(value));
  }
  return std::nullopt;
}

template <typename From, typename To>
void WidenIntegers(const uint8_t* elements, size_t count, void* values) {
  for (size_t i = 0; i < count; ++i) StoreAt<To>(values, i, LoadAt<From>(elements, i));
}

void NarrowFloats(FloatFormat format, const void* values, size_t count, uint8_t* out) {
  for (size_t i = 0; i < count; ++i) {
    StoreAt<uint16_t>(out, i,
                      static_cast<uint16_t>(EncodeFloat(format, LoadAt<float>(values, i))));
  }
}

void WidenFloats(FloatFormat format, const uint8_t* elements, size_t count, void* values) {
  for (size_t i = 0; i < count; ++i) {
    StoreAt<float>(values, i, DecodeFloat(format, LoadAt<uint16_t>(elements, i)));
  }
}

}  // namespace

std::string_view ValueFieldName(ValueField field) {
  switch (field) {
    case ValueField::kNone:
      return "no values";
    case ValueField::kRaw:
      return "raw_data";
    case ValueField::kFloat:
      return "float_data";
    case ValueField::kInt32:
      return "int32_data";
    case ValueField::kUInt32:
      return "uint32_data";
    case ValueField::kInt64:
      return "int64_data";
    case ValueField::kUInt64:
      return "uint64_data";
    case ValueField::kBool:
      return "bool_data";
  }
  return "no values";
}

size_t ValueFieldElementSize(ValueField field) {
  switch (field) {
    case ValueField::kNone:
    case ValueField::kRaw:
    case ValueField::kBool:
      return 1;
    case ValueField::kFloat:
    case ValueField::kInt32:
    case ValueField::kUInt32:
      return 4;
    case ValueField::kInt64:
    case ValueField::kUInt64:
      return 8;
  }
  return 1;
}

ValueField TypedFieldOf(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return ValueField::kFloat;
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
      return ValueField::kInt32;
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32:
      return ValueField::kUInt32;
    case DataType::kInt64:
      return ValueField::kInt64;
    case DataType::kUInt64:
      return ValueField::kUInt64;
    default:
      return ValueField::kRaw;
  }
}

bool FieldCarries(ValueField field, DataType dtype) {
  if (field == ValueField::kBool) return dtype == DataType::kInt8 || dtype == DataType::kUInt8;
  return field == ValueField::kRaw || (field != ValueField::kNone && field == TypedFieldOf(dtype));
}

bool FieldIsElementLayout(ValueField field, DataType dtype) {
  return field == ValueField::kRaw ||
         (FieldCarries(field, dtype) && ValueFieldElementSize(field) == DataTypeSize(dtype));
}

std::optional<OutOfRangeValue> NarrowToElements(DataType dtype, const void* values, size_t count,
                                                absl::Span<uint8_t> elements) {
  uint8_t* out = elements.data();
  switch (dtype) {
    case DataType::kFloat16:
      NarrowFloats(kFloat16Format, values, count, out);
      return std::nullopt;
    case DataType::kBFloat16:
      NarrowFloats(kBFloat16Format, values, count, out);
      return std::nullopt;
    case DataType::kInt8:
      return NarrowIntegers<int32_t, int8_t>(values, count, out);
    case DataType::kInt16:
      return NarrowIntegers<int32_t, int16_t>(values, count, out);
    case DataType::kUInt8:
      return NarrowIntegers<uint32_t, uint8_t>(values, count, out);
    case DataType::kUInt16:
      return NarrowIntegers<uint32_t, uint16_t>(values, count, out);
    default:
      return std::nullopt;
  }
}

void WidenToField(DataType dtype, absl::Span<const uint8_t> elements, void* values, size_t count) {
  const uint8_t* in = elements.data();
  switch (dtype) {
    case DataType::kFloat16:
      WidenFloats(kFloat16Format, in, count, values);
      return;
    case DataType::kBFloat16:
      WidenFloats(kBFloat16Format, in, count, values);
      return;
    case DataType::kInt8:
      WidenIntegers<int8_t, int32_t>(in, count, values);
      return;
    case DataType::kInt16:
      WidenIntegers<int16_t, int32_t>(in, count, values);
      return;
    case DataType::kUInt8:
      WidenIntegers<uint8_t, uint32_t>(in, count, values);
      return;
    case DataType::kUInt16:
      WidenIntegers<uint16_t, uint32_t>(in, count, values);
      return;
    default:
      return;
  }
}

}  // namespace neuronserve
