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
  if (!DataTypeHasTypedField(dtype)) return ValueField::kRaw;
  // The integer fields are 32 and 64 bits wide: the narrower integers travel in the 32-bit one.
  const bool wide = DataTypeSize(dtype) == 8;
  const NumberKind kind = DataTypeNumberKind(dtype);
  if (kind == NumberKind::kSigned) return wide ? ValueField::kInt64 : ValueField::kInt32;
  if (kind == NumberKind::kUnsigned) return wide ? ValueField::kUInt64 : ValueField::kUInt32;
  return ValueField::kFloat;
}

bool FieldCarries(ValueField field, DataType dtype) {
  if (field == ValueField::kBool) return dtype == DataType::kInt8 || dtype == DataType::kUInt8;
  return field == ValueField::kRaw || (field != ValueField::kNone && field == TypedFieldOf(dtype));
}

bool FieldIsElementLayout(ValueField field, DataType dtype) {
  return field == ValueField::kRaw ||
         (FieldCarries(field, dtype) && ValueFieldElementSize(field) == DataTypeSize(dtype));
}

// The conversions are chosen by what the dtype table says of the dtype (its narrow float format,
// its number kind and width), so that a dtype's facts are written once, in base/dtype.cc.
std::optional<OutOfRangeValue> NarrowToElements(DataType dtype, const void* values, size_t count,
                                                absl::Span<uint8_t> elements) {
  if (!DataTypeHasTypedField(dtype)) return std::nullopt;
  uint8_t* out = elements.data();
  if (const std::optional<FloatFormat> format = DataTypeNarrowFloatFormat(dtype)) {
    NarrowFloats(*format, values, count, out);
    return std::nullopt;
  }
  const bool is_signed = DataTypeNumberKind(dtype) == NumberKind::kSigned;
  const size_t size = DataTypeSize(dtype);
  if (is_signed && size == 1) return NarrowIntegers<int32_t, int8_t>(values, count, out);
  if (is_signed && size == 2) return NarrowIntegers<int32_t, int16_t>(values, count, out);
  if (!is_signed && size == 1) return NarrowIntegers<uint32_t, uint8_t>(values, count, out);
  if (!is_signed && size == 2) return NarrowIntegers<uint32_t, uint16_t>(values, count, out);
  return std::nullopt;  // float32, int32, uint32, int64, uint64: the field holds the elements
}

void WidenToField(DataType dtype, absl::Span<const uint8_t> elements, void* values, size_t count) {
  if (!DataTypeHasTypedField(dtype)) return;
  const uint8_t* in = elements.data();
  if (const std::optional<FloatFormat> format = DataTypeNarrowFloatFormat(dtype)) {
    WidenFloats(*format, in, count, values);
    return;
  }
  const bool is_signed = DataTypeNumberKind(dtype) == NumberKind::kSigned;
  const size_t size = DataTypeSize(dtype);
  if (is_signed && size == 1) WidenIntegers<int8_t, int32_t>(in, count, values);
  if (is_signed && size == 2) WidenIntegers<int16_t, int32_t>(in, count, values);
  if (!is_signed && size == 1) WidenIntegers<uint8_t, uint32_t>(in, count, values);
  if (!is_signed && size == 2) WidenIntegers<uint16_t, uint32_t>(in, count, values);
}

}  // namespace neuronserve
