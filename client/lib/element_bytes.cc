#include "client/lib/element_bytes.h"

#include <bit>
#include <cstring>

namespace neuronserve::client {

std::optional<FloatFormat> HalfFormatOf(std::optional<DataType> type) {
  if (type == DataType::kFloat16) return neuronserve::kFloat16Format;
  if (type == DataType::kBFloat16) return neuronserve::kBFloat16Format;
  return std::nullopt;
}

uint64_t LoadLittleEndian(const uint8_t* bytes, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

void AppendLittleEndian(uint64_t value, size_t size, std::string& out) {
  for (size_t i = 0; i < size; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void AppendLittleEndian(uint64_t value, size_t size, std::vector<uint8_t>& out) {
  for (size_t i = 0; i < size; ++i) out.push_back(static_cast<uint8_t>((value >> (8 * i)) & 0xff));
}

int64_t SignExtend(uint64_t bits, size_t size) {
  if (size >= 8) return static_cast<int64_t>(bits);
  const unsigned shift = 64 - 8 * static_cast<unsigned>(size);
  return static_cast<int64_t>(bits << shift) >> shift;
}

void AppendFloatsRaw(absl::Span<const float> values, std::optional<DataType> type,
                     std::string& raw) {
  if (std::optional<FloatFormat> half = HalfFormatOf(type)) {
    raw.reserve(raw.size() + 2 * values.size());
    for (float value : values) AppendLittleEndian(EncodeFloat(*half, value), 2, raw);
    return;
  }
  const size_t offset = raw.size();
  raw.resize(offset + values.size() * sizeof(float));
  char* out = raw.data() + offset;
  if constexpr (std::endian::native == std::endian::little) {
    if (!values.empty()) std::memcpy(out, values.data(), values.size() * sizeof(float));
  } else {
    for (float value : values) {
      uint32_t bits = std::bit_cast<uint32_t>(value);
      for (int byte = 0; byte < 4; ++byte) *out++ = static_cast<char>((bits >> (8 * byte)) & 0xff);
    }
  }
}

}  // namespace neuronserve::client
