#include "sim/compute/element_access.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace neuronserve::nrtsim::compute {
namespace {

// Whole-element memcpy of the low bytes of an integer is only the value's low bytes on a
// little-endian host, which is also the byte order of tensor data.
static_assert(std::endian::native == std::endian::little,
              "element access assumes a little-endian host");

template <typename T>
T LoadAs(const std::byte* element) {
  T value;
  std::memcpy(&value, element, sizeof value);
  return value;
}

template <typename T>
void StoreAs(T value, std::byte* element) {
  std::memcpy(element, &value, sizeof value);
}

}  // namespace

ComputeKind ComputeKindOf(DataType type) {
  switch (type) {
    case DataType::kFloat32:
    case DataType::kFp32R:
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kFp8E3:
    case DataType::kFp8E4:
    case DataType::kFp8E5:
      return ComputeKind::kFloat;
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
      return ComputeKind::kSigned;
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32:
    case DataType::kUInt64:
      return ComputeKind::kUnsigned;
    case DataType::kUnknown:
      break;
  }
  return ComputeKind::kNone;
}

const FloatFormat* NarrowFloatFormatOf(DataType type) {
  switch (type) {
    case DataType::kFloat16:
      return &kFloat16Format;
    case DataType::kBFloat16:
      return &kBFloat16Format;
    case DataType::kFp8E3:
      return &kFp8E3M4Format;
    case DataType::kFp8E4:
      return &kFp8E4M3Format;
    case DataType::kFp8E5:
      return &kFp8E5M2Format;
    default:
      return nullptr;
  }
}

float LoadFloat(DataType type, const std::byte* element) {
  switch (type) {
    case DataType::kFloat16:
      return DecodeFloat(kFloat16Format, LoadAs<uint16_t>(element));
    case DataType::kBFloat16:
      return DecodeFloat(kBFloat16Format, LoadAs<uint16_t>(element));
    case DataType::kFp8E3:
      return DecodeFloat(kFp8E3M4Format, LoadAs<uint8_t>(element));
    case DataType::kFp8E4:
      return DecodeFloat(kFp8E4M3Format, LoadAs<uint8_t>(element));
    case DataType::kFp8E5:
      return DecodeFloat(kFp8E5M2Format, LoadAs<uint8_t>(element));
    default:  // float32 and fp32r
      return LoadAs<float>(element);
  }
}

int64_t LoadSigned(DataType type, const std::byte* element) {
  switch (type) {
    case DataType::kInt8:
      return LoadAs<int8_t>(element);
    case DataType::kInt16:
      return LoadAs<int16_t>(element);
    case DataType::kInt32:
      return LoadAs<int32_t>(element);
    default:  // int64
      return LoadAs<int64_t>(element);
  }
}

uint64_t LoadUnsigned(DataType type, const std::byte* element) {
  switch (type) {
    case DataType::kUInt8:
      return LoadAs<uint8_t>(element);
    case DataType::kUInt16:
      return LoadAs<uint16_t>(element);
    case DataType::kUInt32:
      return LoadAs<uint32_t>(element);
    default:  // uint64
      return LoadAs<uint64_t>(element);
  }
}

uint64_t LoadIntegerBits(DataType type, const std::byte* element) {
  if (ComputeKindOf(type) == ComputeKind::kSigned) {
    return static_cast<uint64_t>(LoadSigned(type, element));
  }
  return LoadUnsigned(type, element);
}

void StoreFloat(DataType type, double value, std::byte* element) {
  if (const FloatFormat* format = NarrowFloatFormatOf(type)) {
    const uint32_t bits = EncodeFloat(*format, value);
    if (DataTypeSize(type) == 2) {
      StoreAs(static_cast<uint16_t>(bits), element);
    } else {
      StoreAs(static_cast<uint8_t>(bits), element);
    }
    return;
  }
  // float32 and fp32r. A double beyond float32's range is outside what static_cast<float>
  // defines, so it takes the general encoder, which rounds it to FLT_MAX or to inf.
  constexpr double kFloat32Max = std::numeric_limits<float>::max();
  if (std::fabs(value) > kFloat32Max && !std::isinf(value)) {
    constexpr FloatFormat kFloat32Format{8, 23, SpecialEncoding::kIeee};
    StoreAs(EncodeFloat(kFloat32Format, value), element);
    return;
  }
  StoreAs(static_cast<float>(value), element);
}

void StoreIntegerBits(DataType type, uint64_t bits, std::byte* element) {
  std::memcpy(element, &bits, DataTypeSize(type));
}

}  // namespace neuronserve::nrtsim::compute
