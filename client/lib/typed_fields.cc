#include "client/lib/typed_fields.h"

#include <bit>

#include "client/lib/element_bytes.h"

namespace neuronserve::client {

bool IsSignedInt(DataType type) {
  return type == DataType::kInt8 || type == DataType::kInt16 || type == DataType::kInt32;
}
bool IsUnsignedInt(DataType type) {
  return type == DataType::kUInt8 || type == DataType::kUInt16 || type == DataType::kUInt32;
}

bool HasTypedField(DataType type) {
  return type == DataType::kFloat32 || IsSignedInt(type) || IsUnsignedInt(type) ||
         type == DataType::kInt64 || type == DataType::kUInt64;
}

bool EncodeTyped(absl::Span<const uint8_t> bytes, DataType type, const TypedFields& fields) {
  const size_t size = DataTypeSize(type);
  if (!HasTypedField(type) || size == 0 || bytes.size() % size != 0) return false;
  const size_t count = bytes.size() / size;
  if (type == DataType::kFloat32) {
    fields.floats->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      fields.floats->Add(
          std::bit_cast<float>(static_cast<uint32_t>(LoadLittleEndian(&bytes[4 * i], 4))));
    }
  } else if (IsSignedInt(type)) {
    fields.int32s->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      fields.int32s->Add(
          static_cast<int32_t>(SignExtend(LoadLittleEndian(&bytes[size * i], size), size)));
    }
  } else if (IsUnsignedInt(type)) {
    fields.uint32s->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      fields.uint32s->Add(static_cast<uint32_t>(LoadLittleEndian(&bytes[size * i], size)));
    }
  } else if (type == DataType::kInt64) {
    fields.int64s->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      fields.int64s->Add(static_cast<int64_t>(LoadLittleEndian(&bytes[8 * i], 8)));
    }
  } else {
    fields.uint64s->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) fields.uint64s->Add(LoadLittleEndian(&bytes[8 * i], 8));
  }
  return true;
}

}  // namespace neuronserve::client
